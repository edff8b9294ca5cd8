package wal

import "slices"

// ProcFacts are the pg_proc columns of the user functions that psql's
// \df and \df+ print, beyond what PsqlFacts holds (mirror section 'y').
// They are read with the schemas by the table that carries the
// cluster's facts, and the same functions are read as PsqlFacts.Functions
// (outside pg_catalog and information_schema, at most MaxPsqlFunctions).
// None of it is replicated: the facts may be up to one catalog poll stale
// after CREATE/ALTER/DROP FUNCTION, GRANT ON FUNCTION or COMMENT ON
// FUNCTION.
type ProcFacts struct {
	// Functions are by OID; nil when there were more than
	// MaxPsqlFunctions (not read).
	Functions []ProcDetail
}

// ProcDetail is one user function's pg_proc row as \df+ reads it.
type ProcDetail struct {
	OID uint32
	// Namespace, Owner and Lang are pronamespace, proowner and prolang.
	Namespace, Owner, Lang uint32
	// Kind, Volatile and Parallel are prokind, provolatile and
	// proparallel.
	Kind, Volatile, Parallel byte
	// SecDef and RetSet are prosecdef and proretset.
	SecDef, RetSet bool
	// RetType is prorettype.
	RetType uint32
	// Result, Arguments and IdentityArguments are
	// pg_get_function_result, pg_get_function_arguments and
	// pg_get_function_identity_arguments, read under search_path public.
	// HasResult is false where pg_get_function_result is NULL (a
	// procedure).
	Result, Arguments, IdentityArguments string
	HasResult                            bool
	// ACL is proacl's elements' text; HasACL false when proacl is NULL.
	ACL    []string
	HasACL bool
	// Src is prosrc.
	Src string
	// BodyTree is prosqlbody (a BEGIN ATOMIC or RETURN body, as its
	// pg_node_tree text) and Body pg_get_function_sqlbody of it, read
	// under search_path public; HasBody false when prosqlbody is NULL.
	BodyTree, Body string
	HasBody        bool
	// Comment is obj_description(oid, 'pg_proc'); HasComment false when
	// there is none.
	Comment    string
	HasComment bool
}

// equal compares two functions' details.
func (p ProcDetail) equal(o ProcDetail) bool {
	return p.OID == o.OID && p.Namespace == o.Namespace && p.Owner == o.Owner && p.Lang == o.Lang && p.Kind == o.Kind &&
		p.Volatile == o.Volatile && p.Parallel == o.Parallel && p.SecDef == o.SecDef && p.RetSet == o.RetSet && p.RetType == o.RetType &&
		p.Result == o.Result && p.Arguments == o.Arguments && p.IdentityArguments == o.IdentityArguments && p.HasResult == o.HasResult &&
		slices.Equal(p.ACL, o.ACL) && p.HasACL == o.HasACL && p.Src == o.Src && p.BodyTree == o.BodyTree && p.Body == o.Body && p.HasBody == o.HasBody && p.Comment == o.Comment && p.HasComment == o.HasComment
}

// Equal reports whether p and o hold the same facts (nil: not read).
func (p *ProcFacts) Equal(o *ProcFacts) bool {
	if p == nil || o == nil {
		return p == o
	}
	return (p.Functions == nil) == (o.Functions == nil) && slices.EqualFunc(p.Functions, o.Functions, ProcDetail.equal)
}
