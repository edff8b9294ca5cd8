package wal

import "slices"

// ViewFacts is a plain or materialized view above a followed table: a
// view whose rewrite rule reads the table, directly or through other
// views (pg_depend of its _RETURN rule in pg_rewrite). The copy and the
// catalog poll read every such view with the table's schema facts
// (SchemaFacts.Views), so a view over several followed tables is listed
// with each of them; the SQL port serves it when all its references
// are followed tables or served views, and refuses it by the first
// reference that is not.
type ViewFacts struct {
	OID          uint32
	Schema, Name string
	// Kind is relkind: 'v' a view, 'm' a materialized view (refused).
	Kind     byte
	OwnerOID uint32 // relowner
	Owner    string
	// Columns are the view's pg_attribute rows, in attnum order.
	Columns []ViewColumn
	// Def and DefPretty are pg_get_viewdef(oid) and (oid, true) read
	// with search_path public (as pg_views and psql show them); Qualified
	// is pg_get_viewdef(oid) read with an empty search_path, every
	// relation schema-qualified (what the SQL port binds).
	Def, DefPretty, Qualified string
	// Refs are the relations the view's rule reads directly (tables,
	// views, …), by OID.
	Refs []ViewRef
	// Comment is obj_description(oid, 'pg_class') ("" none).
	Comment string
	// Options is the view's pg_class.reloptions (security_barrier,
	// check_option, …; nil: NULL).
	Options []string
}

// ViewColumn is one column of a view.
type ViewColumn struct {
	Name    string
	TypeOID uint32
	TypeMod int32
	// Collation is attcollation; HasDefault atthasdef, and Default and
	// DefaultPretty the default's pg_get_expr plain and pretty (ALTER
	// VIEW … ALTER COLUMN … SET DEFAULT). Read when the schema facts'
	// ViewColumnsRead.
	Collation              uint32
	HasDefault             bool
	Default, DefaultPretty string
}

// ViewRef is one relation a view reads.
type ViewRef struct {
	OID          uint32
	Schema, Name string
	Kind         byte // relkind
}

// QualifiedName is schema.name.
func (v *ViewFacts) QualifiedName() string { return v.Schema + "." + v.Name }

// Equal reports whether v and o are the same view definition.
func (v *ViewFacts) Equal(o *ViewFacts) bool {
	return v.OID == o.OID && v.Schema == o.Schema && v.Name == o.Name && v.Kind == o.Kind && v.OwnerOID == o.OwnerOID && v.Owner == o.Owner &&
		slices.Equal(v.Columns, o.Columns) && v.Def == o.Def && v.DefPretty == o.DefPretty && v.Qualified == o.Qualified &&
		slices.Equal(v.Refs, o.Refs) && v.Comment == o.Comment && slices.Equal(v.Options, o.Options) && (v.Options == nil) == (o.Options == nil)
}

func viewsEqual(a, b []ViewFacts) bool {
	return slices.EqualFunc(a, b, func(x, y ViewFacts) bool { return x.Equal(&y) })
}
