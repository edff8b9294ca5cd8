package wal

import "slices"

// PsqlFacts are what psql's describe commands read of the source
// database beyond the other sections, read with the schemas by the
// table carrying the cluster's facts (like the listings): every
// schema's ACL and comment (\dn+), and the functions outside pg_catalog
// and information_schema with their definitions (\sf). None of it is
// replicated: up to one catalog poll stale after GRANT/REVOKE ON SCHEMA,
// COMMENT ON SCHEMA or CREATE/ALTER/DROP FUNCTION.
// A later sidecar appends fields (the section is one length-prefixed
// body, mirror/catfacts_psql.go, section 'v').
type PsqlFacts struct {
	// Namespaces are every schema of the database, by OID.
	Namespaces []NamespaceDetail
	// Functions are the functions and procedures outside pg_catalog and
	// information_schema, by OID; nil when there were more than
	// MaxPsqlFunctions (not read).
	Functions []FunctionDetail
}

// MaxPsqlFunctions bounds the functions read: a database with more
// keeps them unread (\sf refused) rather than a copy per poll of them
// all.
const MaxPsqlFunctions = 2000

// FunctionDetail is one user function: what regproc and regprocedure
// resolve and pg_get_functiondef prints.
type FunctionDetail struct {
	OID    uint32
	Schema string
	Name   string
	// ArgTypes are proargtypes (the input arguments' type OIDs).
	ArgTypes []uint32
	// Def is pg_get_functiondef(oid), read under search_path public
	// ("" for an aggregate: PostgreSQL fails).
	Def string
	// Kind is prokind: 'f', 'p', 'a' or 'w'.
	Kind byte
	// BuiltinSameName is how many of pg_catalog's functions have the
	// same name (an unqualified regproc name may reach them first).
	BuiltinSameName int
}

// equal compares two functions' details.
func (f FunctionDetail) equal(o FunctionDetail) bool {
	return f.OID == o.OID && f.Schema == o.Schema && f.Name == o.Name && slices.Equal(f.ArgTypes, o.ArgTypes) && f.Def == o.Def &&
		f.Kind == o.Kind && f.BuiltinSameName == o.BuiltinSameName
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
	return slices.EqualFunc(p.Namespaces, o.Namespaces, NamespaceDetail.equal) && (p.Functions == nil) == (o.Functions == nil) &&
		slices.EqualFunc(p.Functions, o.Functions, FunctionDetail.equal)
}
