package wal

import "slices"

// PsqlFacts are what psql's describe commands read of the source
// database beyond the other sections, read with the schemas by the
// table carrying the cluster's facts (like the listings): every
// schema's ACL and comment (\dn+). None of it is replicated: up to one
// catalog poll stale after GRANT/REVOKE ON SCHEMA or COMMENT ON SCHEMA.
// A later sidecar appends fields (the section is one length-prefixed
// body, mirror/catfacts_psql.go, section 'v').
type PsqlFacts struct {
	// Namespaces are every schema of the database, by OID.
	Namespaces []NamespaceDetail
}

// NamespaceDetail is one pg_namespace row's ACL and comment.
type NamespaceDetail struct {
	OID  uint32
	Name string
	// ACL is nspacl's elements' text; HasACL false when nspacl is NULL.
	ACL    []string
	HasACL bool
	// Comment is obj_description(oid, 'pg_namespace'); HasComment false
	// when there is none.
	Comment    string
	HasComment bool
}

// equal compares two schemas' details.
func (n NamespaceDetail) equal(o NamespaceDetail) bool {
	return n.OID == o.OID && n.Name == o.Name && slices.Equal(n.ACL, o.ACL) && n.HasACL == o.HasACL &&
		n.Comment == o.Comment && n.HasComment == o.HasComment
}

// Equal reports whether p and o hold the same facts (nil: not read).
func (p *PsqlFacts) Equal(o *PsqlFacts) bool {
	if p == nil || o == nil {
		return p == o
	}
	return slices.EqualFunc(p.Namespaces, o.Namespaces, NamespaceDetail.equal)
}
