package wal

import "slices"

// ExtensionFacts are the source database's extensions (pg_extension),
// their comments (pg_description with classoid pg_extension) and the
// schemas they are installed in, read with the schemas by the table
// carrying the cluster's facts: psql's \dx and the tools' "is PostGIS
// (pg_trgm, timescaledb) installed" checks read them. Every extension
// is read, plpgsql (created by initdb) included.
type ExtensionFacts struct {
	Extensions []ExtensionRow
	// Namespaces are the schemas of the extensions (pg_namespace lists
	// them).
	Namespaces []NamespaceFacts
	// MembersRead says Members and Schemas were read (records written
	// before, or more than MaxExtensionMembers members: not read).
	MembersRead bool
	// Schemas are the names of every schema of the database: a session
	// whose search_path names another existing schema would see the
	// members' descriptions otherwise qualified.
	Schemas []string
}

// ExtensionRow is one pg_extension row and its comment.
type ExtensionRow struct {
	OID, Owner, Namespace uint32
	Name, Version         string
	Relocatable           bool
	// Config and Condition are extconfig and extcondition (nil: NULL).
	Config    []uint32
	Condition []string
	// Comment is obj_description(oid, 'pg_extension') (HasComment
	// false: none).
	Comment    string
	HasComment bool
	// Members are the descriptions of the objects the extension holds
	// (pg_describe_object of its pg_depend 'e' rows, search_path
	// public), in psql's \dx+ order (ORDER BY 1 on the server).
	Members []string
}

// MaxExtensionMembers bounds the members read over all extensions (and
// the schemas' names): a database with more is recorded without them.
const MaxExtensionMembers = 50000

// MaxExtensions bounds the extensions read: a database with more is
// recorded without them (the SQL port then refuses pg_extension).
const MaxExtensions = 1000

// Equal reports whether e and o hold the same rows (nil: not read).
func (e *ExtensionFacts) Equal(o *ExtensionFacts) bool {
	if e == nil || o == nil {
		return e == o
	}
	return slices.EqualFunc(e.Extensions, o.Extensions, ExtensionRow.equal) && slices.Equal(e.Namespaces, o.Namespaces) &&
		e.MembersRead == o.MembersRead && slices.Equal(e.Schemas, o.Schemas)
}

func (r ExtensionRow) equal(o ExtensionRow) bool {
	return r.OID == o.OID && r.Owner == o.Owner && r.Namespace == o.Namespace && r.Name == o.Name && r.Version == o.Version &&
		r.Relocatable == o.Relocatable && slices.Equal(r.Config, o.Config) && (r.Config == nil) == (o.Config == nil) &&
		slices.Equal(r.Condition, o.Condition) && (r.Condition == nil) == (o.Condition == nil) && r.Comment == o.Comment && r.HasComment == o.HasComment &&
		slices.Equal(r.Members, o.Members)
}
