package wal

import "slices"

// PrivilegeFacts are what the SQL port needs beyond the other sections
// to evaluate PostgreSQL's privilege functions for a session's role
// (issue 23, session 27: information_schema lists only what a role owns
// or holds a privilege on): every column ACL (attacl) of the relation
// list's relations (RelationListFacts: relacl is there, nspacl in
// PsqlFacts, the roles and memberships in SchemaFacts). Read with the
// schemas by the table carrying the cluster's facts
// (replication/relmeta_privileges.go), up to one catalog poll stale
// after GRANT/REVOKE. A later sidecar appends fields (one
// length-prefixed body, mirror/catfacts_privileges.go, section 'D').
type PrivilegeFacts struct {
	// ColumnACLs are the non-dropped user columns with an attacl, by
	// relation OID and attnum; nil when there were more than
	// MaxColumnACLs or the relations were not listed (not read).
	ColumnACLs []ColumnACL
}

// MaxColumnACLs bounds the column ACLs read: a database with more keeps
// them unread (information_schema refused for a role the filter needs
// them for) rather than a copy per poll of them all.
const MaxColumnACLs = 20000

// Equal reports whether p and o hold the same facts (nil: not read).
func (p *PrivilegeFacts) Equal(o *PrivilegeFacts) bool {
	if p == nil || o == nil {
		return p == o
	}
	return (p.ColumnACLs == nil) == (o.ColumnACLs == nil) && slices.EqualFunc(p.ColumnACLs, o.ColumnACLs, func(x, y ColumnACL) bool {
		return x.Rel == y.Rel && x.Column == y.Column && slices.Equal(x.ACL, y.ACL)
	})
}
