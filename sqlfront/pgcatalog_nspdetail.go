package sqlfront

import (
	"strconv"

	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// What psql's \dn+ reads of the schemas beyond their names and owners,
// from the facts the copy and the catalog poll read (wal.PsqlFacts,
// section 'v', replication/relmeta_psql.go; up to one poll stale after
// GRANT/REVOKE ON SCHEMA and COMMENT ON SCHEMA):
//
//   - pg_namespace.nspacl: aclitem[] held as its elements' text (like
//     relacl, pgcatalog_access.go), read through array_to_string and
//     IS NULL; unknown (refused when read) while the facts were not read.
//   - obj_description(oid, 'pg_namespace'): the schema's comment.

// psqlFacts are the psql facts as read (nil: not read — a record
// written before — or two tables' records disagree, between two polls'
// records).
func psqlFacts(tables []Table) *wal.PsqlFacts {
	return carriedSection(tables, func(s *wal.SchemaFacts) *wal.PsqlFacts { return s.Psql }, (*wal.PsqlFacts).Equal) // pgcatalog_extensions.go
}

// namespaceDetail is the schema oid's ACL and comment as read (false:
// not read, or not a schema of the database when read).
func namespaceDetail(tables []Table, oid uint32) (wal.NamespaceDetail, bool) {
	p := psqlFacts(tables)
	if p == nil || oid == 0 {
		return wal.NamespaceDetail{}, false
	}
	for _, n := range p.Namespaces {
		if n.OID == oid {
			return n, true
		}
	}
	return wal.NamespaceDetail{}, false
}

// namespaceACL is pg_namespace.nspacl of the schema oid: its elements'
// text array, NULL, or unknown when not read.
func namespaceACL(tables []Table, oid uint32) *string {
	n, ok := namespaceDetail(tables, oid)
	switch {
	case !ok:
		return pgUnknown
	case !n.HasACL:
		return nil
	case n.ACL == nil:
		return relOptions([]string{}) // '{}': every privilege revoked
	}
	return relOptions(n.ACL)
}

// namespaceComment is obj_description(oid, 'pg_namespace'): the
// schema's comment (NULL: none), refused when not read.
func namespaceComment(tables []Table, oid uint32) (types.Value, error) {
	n, ok := namespaceDetail(tables, oid)
	switch {
	case !ok:
		return nil, unsupported(-1, "obj_description of the schema with OID "+strconv.FormatUint(uint64(oid), 10)+
			" (its comment was not read from the server: a schema sidecar does not list, or a mirror copied by an older sidecar until the next catalog poll)")
	case !n.HasComment:
		return nil, nil
	}
	return n.Comment, nil
}
