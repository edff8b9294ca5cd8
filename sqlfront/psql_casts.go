package sqlfront

import (
	"slices"

	"github.com/sidecar-dev/sidecar/wal"
)

// psql's \dC and \dC+ (issue 23, session 25): the casts of the source
// database, pg_cast joined with pg_proc, pg_type, pg_namespace and
// pg_description. pg_cast is server-wide and version-specific (229 rows
// on 15, others on 14 and 18, plus an extension's or CREATE CAST's), so
// the copy and the catalog poll read its rows with the texts psql prints
// (wal.CastFacts, facts section 'B', replication/relmeta_casts.go) in
// psql's order, and psql 15's four query texts (with and without +, with
// and without a type pattern) are answered from them. A cast whose
// source or target type is outside pg_catalog formats and is visible by
// the session's search path: the answer is refused when such a row is
// listed, as it is under a search_path placing pg_catalog after another
// schema (a type there could hide a pg_catalog one). Other forms (a
// schema-qualified pattern) reach pg_cast through the engine, which does
// not serve it: 0A000.

// psqlCastLiterals are the string literals psql's \dC query holds
// before its patterns (its CASEs): a query of the same shape with other
// literals is not psql's and is refused.
var psqlCastLiterals = []string{"b", "(binary coercible)", "i", "(with inout)", "e", "no", "a", "in assignment", "yes"}

const psqlCastSelect = `SELECT pg_catalog.format_type(castsource, NULL) AS "Source type",
       pg_catalog.format_type(casttarget, NULL) AS "Target type",
       CASE WHEN c.castmethod = 'b' THEN '(binary coercible)'
            WHEN c.castmethod = 'i' THEN '(with inout)'
            ELSE p.proname
       END AS "Function",
       CASE WHEN c.castcontext = 'e' THEN 'no'
            WHEN c.castcontext = 'a' THEN 'in assignment'
            ELSE 'yes'
       END AS "Implicit?"`

const psqlCastFrom = `
FROM pg_catalog.pg_cast c LEFT JOIN pg_catalog.pg_proc p
     ON c.castfunc = p.oid
     LEFT JOIN pg_catalog.pg_type ts
     ON c.castsource = ts.oid
     LEFT JOIN pg_catalog.pg_namespace ns
     ON ns.oid = ts.typnamespace
     LEFT JOIN pg_catalog.pg_type tt
     ON c.casttarget = tt.oid
     LEFT JOIN pg_catalog.pg_namespace nt
     ON nt.oid = tt.typnamespace`

const psqlCastDescription = `,
       d.description AS "Description"`

const psqlCastDescriptionJoin = `
     LEFT JOIN pg_catalog.pg_description d
     ON d.classoid = c.tableoid AND d.objoid = c.oid AND d.objsubid = 0`

const psqlCastWhere = `
WHERE ( (true  AND pg_catalog.pg_type_is_visible(ts.oid)
) OR (true  AND pg_catalog.pg_type_is_visible(tt.oid)
) )
ORDER BY 1, 2;`

const psqlCastWherePattern = `
WHERE ( (true  AND (ts.typname OPERATOR(pg_catalog.~) '^(int.*)$' COLLATE pg_catalog.default
        OR pg_catalog.format_type(ts.oid, NULL) OPERATOR(pg_catalog.~) '^(int.*)$' COLLATE pg_catalog.default)
  AND pg_catalog.pg_type_is_visible(ts.oid)
) OR (true  AND (tt.typname OPERATOR(pg_catalog.~) '^(int.*)$' COLLATE pg_catalog.default
        OR pg_catalog.format_type(tt.oid, NULL) OPERATOR(pg_catalog.~) '^(int.*)$' COLLATE pg_catalog.default)
  AND pg_catalog.pg_type_is_visible(tt.oid)
) )
ORDER BY 1, 2;`

// psqlCastQueries are psql 15's \dC texts (the same to a 14–18 server).
var psqlCastQueries = map[string]string{
	"dC":        psqlCastSelect + psqlCastFrom + psqlCastWhere,
	"dCplus":    psqlCastSelect + psqlCastDescription + psqlCastFrom + psqlCastDescriptionJoin + psqlCastWhere,
	"dCpat":     psqlCastSelect + psqlCastFrom + psqlCastWherePattern,
	"dCpatplus": psqlCastSelect + psqlCastDescription + psqlCastFrom + psqlCastDescriptionJoin + psqlCastWherePattern,
}

var psqlCastCols = []string{"Source type", "Target type", "Function:name", "Implicit?"}

// psqlCastHandlers answer psqlCastQueries by name.
var psqlCastHandlers = map[string]*canned{
	"dC":        {cols: psqlCastCols, rows: func(ex *execCtx, consts []string) ([][]*string, error) { return castRows(ex, consts, false) }},
	"dCplus":    {cols: append(slices.Clone(psqlCastCols), "Description@pg_description.description"), rows: func(ex *execCtx, consts []string) ([][]*string, error) { return castRows(ex, consts, true) }},
	"dCpat":     {cols: psqlCastCols, rows: func(ex *execCtx, consts []string) ([][]*string, error) { return castRows(ex, consts, false) }},
	"dCpatplus": {cols: append(slices.Clone(psqlCastCols), "Description@pg_description.description"), rows: func(ex *execCtx, consts []string) ([][]*string, error) { return castRows(ex, consts, true) }},
}

// castRows answers psql's \dC (\dC+ when verbose) from the carried
// pg_cast rows; consts are the query's literals: psql's CASE texts, then
// the pattern four times when it has one.
func castRows(ex *execCtx, consts []string, verbose bool) ([][]*string, error) {
	n := len(psqlCastLiterals)
	if len(consts) < n || !slices.Equal(consts[:n], psqlCastLiterals) {
		return nil, unsupported(-1, "a query over pg_cast other than psql's \\dC (sidecar's catalog does not serve pg_cast)")
	}
	match := func(string) (bool, error) { return true, nil }
	if pats := consts[n:]; len(pats) > 0 {
		if len(pats) != 4 || pats[1] != pats[0] || pats[2] != pats[0] || pats[3] != pats[0] {
			return nil, unsupported(-1, "psql's \\dC with different patterns for its source and target types")
		}
		m, err := psqlPattern(pats[0]) // catalog_psql.go
		if err != nil {
			return nil, err
		}
		match = m
	}
	if i := slices.Index(searchPathOf(ex.sess), "pg_catalog"); i > 0 {
		return nil, unsupported(-1, "psql's \\dC under a search_path naming pg_catalog after another schema (a type there could hide a built-in one)")
	}
	casts := carriedSection(ex.src.Tables(), func(s *wal.SchemaFacts) *wal.CastFacts { return s.Casts }, (*wal.CastFacts).Equal) // pgcatalog_extensions.go
	if casts == nil || casts.Rows == nil {
		return nil, unsupported(-1, "psql's \\dC: the source database's casts were not read (more than 20000 casts, or the mirror was copied by an older sidecar: the next catalog poll reads them)")
	}
	var out [][]*string
	for _, r := range casts.Rows {
		ok, err := castMatches(r, match)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if r.UserTypes {
			return nil, unsupported(-1, "psql's \\dC listing the cast from "+r.Source+" to "+r.Target+" (a type outside pg_catalog: its visibility and name depend on the search path)")
		}
		row := []*string{sv(r.Source), sv(r.Target), sv(r.Function), sv(r.Implicit)}
		if r.Function == "" {
			row[2] = nil // no pg_proc row: p.proname is NULL
		}
		if verbose {
			var d *string
			if r.HasComment {
				d = sv(r.Description)
			}
			row = append(row, d)
		}
		out = append(out, row)
	}
	return out, nil
}

// castMatches is psql's pattern over one cast: the source's or the
// target's typname or formatted name.
func castMatches(r wal.CastRow, match psqlMatcher) (bool, error) {
	for _, s := range []string{r.SourceName, r.Source, r.TargetName, r.Target} {
		if ok, err := match(s); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}
