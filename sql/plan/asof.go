package plan

import pg "github.com/pganalyze/pg_query_go/v6"

// LocatedCatalog is the optional interface of a Catalog that tells table
// references apart by where they are in the statement: the front end
// reads a reference written `t AS OF 'ref'` at that version, other
// references of the same table at the statement's version, so each gets
// its own TableDef.
type LocatedCatalog interface {
	// TableAt is Table for the reference whose name starts at byte
	// offset loc of the statement.
	TableAt(schema, name string, loc int32) *TableDef
}

// catalogTable finds the table a FROM reference names.
func (b *binder) catalogTable(rv *pg.RangeVar) *TableDef {
	if lc, ok := b.cat.(LocatedCatalog); ok {
		return lc.TableAt(rv.Schemaname, rv.Relname, rv.Location)
	}
	return b.cat.Table(rv.Schemaname, rv.Relname)
}
