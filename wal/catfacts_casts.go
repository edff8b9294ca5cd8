package wal

import "slices"

// CastFacts are the source database's pg_cast rows as psql's \dC and
// \dC+ print them (issue 23, session 25): pg_cast is server-wide and
// differs by major (229 rows on 15) and by the extensions and CREATE
// CASTs of the database, so it is read from the server, not kept per
// major. Read with the schemas by the table carrying the cluster's
// facts (replication/relmeta_casts.go), up to one catalog poll stale
// after CREATE/DROP CAST or CREATE EXTENSION. Rows is nil when the
// database has more than MaxCasts casts (then the SQL port refuses). A
// later sidecar appends fields (one length-prefixed body,
// mirror/catfacts_casts.go).
type CastFacts struct {
	Rows []CastRow
}

// CastRow is one pg_cast row with the texts psql's \dC computes of it,
// read in psql's order (ORDER BY 1, 2 under the database's collation).
type CastRow struct {
	// Source and Target are format_type(castsource/casttarget, NULL),
	// SourceName and TargetName the types' typname (what a \dC pattern
	// matches besides the formatted name).
	Source, Target, SourceName, TargetName string
	// Function is psql's "Function" column: "(binary coercible)",
	// "(with inout)" or the function's proname; Implicit is "no", "in
	// assignment" or "yes".
	Function, Implicit string
	// Description is the pg_description comment of the cast; HasComment
	// says whether there is one (psql prints NULL otherwise).
	Description string
	HasComment  bool
	// UserTypes: the source or target type is outside pg_catalog (its
	// visibility and formatting depend on the search path).
	UserTypes bool
}

// MaxCasts bounds the casts read (a database with more records none).
const MaxCasts = 20000

// Equal reports whether c and o hold the same facts (nil: not read).
func (c *CastFacts) Equal(o *CastFacts) bool {
	if c == nil || o == nil {
		return c == o
	}
	return slices.Equal(c.Rows, o.Rows) && (c.Rows == nil) == (o.Rows == nil)
}
