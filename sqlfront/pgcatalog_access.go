package sqlfront

import (
	"strconv"

	"github.com/sidecar-dev/sidecar/wal"
)

// What psql's \dp (\z) reads of the followed tables beyond their other
// facts, from the access facts the copy and the catalog poll read
// (wal.AccessFacts, replication/relmeta_access.go; up to one poll stale:
// GRANT, REVOKE and CREATE/ALTER/DROP POLICY are not in the logical
// stream):
//
//   - pg_class.relacl of a table, of the sequences it owns and of the
//     views listed with it; NULL for an index (PostgreSQL has no index
//     privileges). aclitem[] held as its elements' text (aclItems,
//     pgcatalog_database.go): read through array_to_string and IS NULL.
//   - pg_attribute.attacl of those relations' columns.
//   - pg_policy: the tables' row security policies; refused while any
//     followed table's were not read (a record written before).
//
// A relation whose access facts were not read keeps relacl and attacl
// unknown: a statement reading them is refused.

// accessOf is what the followed tables' access facts say: each read
// relation's relacl, and its columns' attacl by name.
type accessOf struct {
	relACL map[uint32][]string
	colACL map[uint32]map[string][]string
	// unread: a followed table whose access facts were not read.
	unread bool
}

// accessFacts gathers the followed tables' access facts.
func accessFacts(tables []Table) accessOf {
	a := accessOf{relACL: map[uint32][]string{}, colACL: map[uint32]map[string][]string{}}
	for i := range tables {
		s := schemaFactsOf(&tables[i])
		if s == nil || s.Access == nil {
			a.unread = true
			continue
		}
		for _, r := range s.Access.ACLs {
			a.relACL[r.OID] = r.ACL
		}
		for _, c := range s.Access.ColumnACLs {
			if a.colACL[c.Rel] == nil {
				a.colACL[c.Rel] = map[string][]string{}
			}
			a.colACL[c.Rel][c.Column] = c.ACL
		}
	}
	return a
}

// The positions of the columns withRelACLs and withColumnACLs set
// (checked at init: pgRels' row functions may not name pgRels).
const (
	classOIDAt, classKindAt, classACLAt = 0, 16, 30
	attRelAt, attNameAt, attACLAt       = 0, 1, 22
)

func init() {
	c, a := catalogDef("pg_catalog", "pg_class"), catalogDef("pg_catalog", "pg_attribute")
	if c.colIndex("oid") != classOIDAt || c.colIndex("relkind") != classKindAt || c.colIndex("relacl") != classACLAt ||
		a.colIndex("attrelid") != attRelAt || a.colIndex("attname") != attNameAt || a.colIndex("attacl") != attACLAt {
		panic("pg_class's or pg_attribute's ACL column positions moved (pgcatalog_access.go)")
	}
}

// withRelACLs sets pg_class rows' relacl from the access facts: an
// index's is NULL, a read relation's its ACL; others stay as built.
func withRelACLs(cx *pgCatCtx, rows [][]*string) [][]*string {
	oidAt, kindAt, aclAt := classOIDAt, classKindAt, classACLAt
	a := accessFacts(cx.tables)
	for _, r := range rows {
		if r[kindAt] != nil && (*r[kindAt] == "i" || *r[kindAt] == "I") { // an index has no ACL (GRANT refuses one)
			r[aclAt] = nil
			continue
		}
		if r[oidAt] == nil || r[aclAt] != pgUnknown {
			continue
		}
		if oid, err := strconv.ParseUint(*r[oidAt], 10, 32); err == nil {
			if acl, ok := a.relACL[uint32(oid)]; ok {
				r[aclAt] = relOptions(acl) // the elements' text array (aclItems)
			}
		}
	}
	return rows
}

// withColumnACLs sets pg_attribute rows' attacl from the access facts
// (of the relations whose relacl was read: their columns without one
// are NULL).
func withColumnACLs(cx *pgCatCtx, rows [][]*string) [][]*string {
	relAt, nameAt, aclAt := attRelAt, attNameAt, attACLAt
	a := accessFacts(cx.tables)
	for _, r := range rows {
		if r[relAt] == nil || r[nameAt] == nil || r[aclAt] != pgUnknown {
			continue
		}
		oid, err := strconv.ParseUint(*r[relAt], 10, 32)
		if err != nil {
			continue
		}
		if _, ok := a.relACL[uint32(oid)]; ok {
			r[aclAt] = nil
			if acl, ok := a.colACL[uint32(oid)][*r[nameAt]]; ok {
				r[aclAt] = relOptions(acl)
			}
		}
	}
	return rows
}

// policyRel is pg_policy: the followed tables' row security policies.
var policyRel = &pgRel{schema: "pg_catalog", name: "pg_policy",
	cols: pgc("oid oid, polname name, polrelid oid, polcmd char, polpermissive bool, polroles oid[], polqual node, polwithcheck node"),
	rows: func(cx *pgCatCtx) [][]*string {
		var out [][]*string
		for i := range cx.tables {
			s := schemaFactsOf(&cx.tables[i])
			if s == nil || s.Access == nil {
				continue
			}
			for _, p := range s.Access.Policies {
				roles := make([]string, len(p.Roles))
				for k, r := range p.Roles {
					roles[k] = strconv.FormatUint(uint64(r), 10)
				}
				out = append(out, []*string{u32(p.OID), sv(p.Name), u32(cx.tables[i].OID), sv(charText(p.Cmd)), bv(p.Permissive),
					relOptions(roles), nodeText(p.HasQual, p.Qual, p.QualPretty), nodeText(p.HasWithCheck, p.WithCheck, p.CheckPretty)})
			}
		}
		return out
	},
	refuse: func(cx *pgCatCtx) error {
		if accessFacts(cx.tables).unread {
			return unsupported(-1, "pg_catalog.pg_policy (a followed table's policies were not read: the mirror was copied by an older sidecar; the next catalog poll reads them)")
		}
		return nil
	}}

// nodeText is a node tree column's value as sidecar holds it (nil: NULL).
func nodeText(has bool, plain, pretty string) *string {
	if !has {
		return nil
	}
	return sv(plain + nodeTreeSep + pretty)
}

// indexColumns are the access facts' columns of the index oid of a
// followed ordinary table (nil: not read), with the table and its index
// facts.
func indexColumns(tables []Table, oid uint32) (*Table, *wal.IndexFacts, *wal.IndexColumns) {
	for i := range tables {
		s := schemaFactsOf(&tables[i])
		if s == nil || s.Access == nil || relKind(&tables[i]) != "r" {
			continue
		}
		for k := range s.Access.Indexes {
			if x := &s.Access.Indexes[k]; x.OID == oid {
				for j := range s.Indexes {
					if s.Indexes[j].OID == oid {
						return &tables[i], &s.Indexes[j], x
					}
				}
			}
		}
	}
	return nil, nil, nil
}
