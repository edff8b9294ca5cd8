package wal

import "slices"

// AccessFacts are what psql's \dp (\z) and \d of an index read of a
// followed table beyond its other facts, read with them at copy and at
// each catalog poll (none of it is replicated: up to one poll stale):
//
//   - ACLs: relacl of the table, of the sequences it owns and of the
//     views listed with it (nil ACL: NULL);
//   - ColumnACLs: attacl of those relations' columns that have one;
//   - Policies: the table's row security policies (pg_policy), in
//     their physical order (ctid: what a sequential scan returns);
//   - Indexes: the table's indexes' own columns (pg_attribute rows of
//     the index) and what \d's index footer reads.
//
// A later sidecar appends fields (the section is one length-prefixed
// body, mirror/catfacts_access.go).
type AccessFacts struct {
	ACLs       []RelationACL
	ColumnACLs []ColumnACL
	Policies   []PolicyFacts
	Indexes    []IndexColumns
}

// RelationACL is one relation's relacl (ACL nil: NULL).
type RelationACL struct {
	OID uint32
	ACL []string
}

// ColumnACL is one column's attacl (never NULL: only columns with one
// are listed).
type ColumnACL struct {
	Rel    uint32
	Column string
	ACL    []string
}

// PolicyFacts is one pg_policy row. Qual and WithCheck are
// pg_get_expr(…, polrelid) and its pretty form under search_path
// public (Has…: not NULL); Roles are polroles ({0}: PUBLIC).
type PolicyFacts struct {
	OID                    uint32
	Name                   string
	Cmd                    byte
	Permissive             bool
	Roles                  []uint32
	HasQual, HasWithCheck  bool
	Qual, QualPretty       string
	WithCheck, CheckPretty string
}

// IndexColumns are one index's pg_attribute rows as psql's \d of the
// index prints them, and its footer's deferrability.
type IndexColumns struct {
	OID                  uint32
	Tablespace           uint32 // reltablespace (0: the database's)
	Deferrable, Deferred bool   // psql's (NOT indimmediate) AND EXISTS (… condeferrable / condeferred)
	Columns              []IndexColumn
}

// IndexColumn is one column of an index: attname,
// format_type(atttypid, atttypmod), pg_get_indexdef(index, attnum,
// true), attstorage and attstattarget as psql's \d+ reads it
// (StatTarget "": NULL).
type IndexColumn struct {
	Name, Type, Def string
	Storage         byte
	StatTarget      string
}

// Equal reports whether a and o hold the same facts (nil: not read).
func (a *AccessFacts) Equal(o *AccessFacts) bool {
	if a == nil || o == nil {
		return a == o
	}
	return slices.EqualFunc(a.ACLs, o.ACLs, func(x, y RelationACL) bool { return x.OID == y.OID && aclEqual(x.ACL, y.ACL) }) &&
		slices.EqualFunc(a.ColumnACLs, o.ColumnACLs, func(x, y ColumnACL) bool {
			return x.Rel == y.Rel && x.Column == y.Column && slices.Equal(x.ACL, y.ACL)
		}) &&
		slices.EqualFunc(a.Policies, o.Policies, PolicyFacts.equal) &&
		slices.EqualFunc(a.Indexes, o.Indexes, func(x, y IndexColumns) bool {
			c1, c2 := x.Columns, y.Columns
			x.Columns, y.Columns = nil, nil
			return x.OID == y.OID && x.Tablespace == y.Tablespace && x.Deferrable == y.Deferrable && x.Deferred == y.Deferred && slices.Equal(c1, c2)
		})
}

func (p PolicyFacts) equal(o PolicyFacts) bool {
	return p.OID == o.OID && p.Name == o.Name && p.Cmd == o.Cmd && p.Permissive == o.Permissive && slices.Equal(p.Roles, o.Roles) &&
		p.HasQual == o.HasQual && p.HasWithCheck == o.HasWithCheck && p.Qual == o.Qual && p.QualPretty == o.QualPretty &&
		p.WithCheck == o.WithCheck && p.CheckPretty == o.CheckPretty
}
