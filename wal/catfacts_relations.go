package wal

import "slices"

// RelationListFacts are every relation and schema of the source
// database outside PostgreSQL's own schemas, read with the schemas by
// the table carrying the cluster's facts: what the catalog lists beyond
// the followed tables (a standalone sequence, a table outside the
// publication, a materialized view, a foreign table) and every schema
// with its owner (a schema holding no followed table). None of it is
// replicated: up to one catalog poll stale after CREATE/DROP/ALTER of
// a relation or schema. A sequence's state (last_value, is_called) is
// not read: it is not knowable at a version.
// A later sidecar appends fields (the section is one length-prefixed
// body, mirror/catfacts_relations.go, section 'w').
type RelationListFacts struct {
	// Relations are the relations outside pg_catalog, information_schema
	// and the pg_toast/pg_temp schemas, by OID; nil when there were more
	// than MaxListedRelations (not read).
	Relations []RelationDetail
	// Namespaces are every schema of the database (PostgreSQL's own
	// included), by OID.
	Namespaces []NamespaceOwner
}

// MaxListedRelations bounds the relations read: a database with more
// keeps them unread (what needs them refused) rather than a copy per
// poll of them all.
const MaxListedRelations = 10000

// RelationDetail is one relation's pg_class row as the catalog lists it
// (and a sequence's pg_sequence row).
type RelationDetail struct {
	OID       uint32
	Namespace uint32 // relnamespace
	Name      string
	// Kind is relkind: 'r', 'p', 'v', 'm', 'S', 'f', 'c', 'i', 'I'.
	Kind        byte
	Owner       uint32 // relowner
	Persistence byte   // relpersistence
	// ACL is relacl's elements' text; HasACL false when relacl is NULL.
	ACL    []string
	HasACL bool
	// RelOptions is reloptions (nil: NULL).
	RelOptions []string
	// Comment is obj_description(oid, 'pg_class'); HasComment false when
	// there is none.
	Comment    string
	HasComment bool
	// Sequence is the pg_sequence row of a sequence (nil otherwise).
	Sequence *SequenceParams
	// Identity says an identity column owns the sequence (pg_depend
	// deptype 'i': information_schema.sequences leaves it out).
	Identity bool
	// Class holds the pg_class columns that change only by DDL.
	Class ClassColumns
}

// ClassColumns are a relation's pg_class columns that DDL alone changes
// (not statistics, not storage: those are not read).
type ClassColumns struct {
	Type, OfType, AM, Tablespace   uint32 // reltype, reloftype, relam, reltablespace
	Natts, Checks                  int16  // relnatts, relchecks
	HasIndex, HasRules, HasTrigger bool   // relhasindex, relhasrules, relhastriggers
	HasSubclass, IsPartition       bool   // relhassubclass, relispartition
	RowSecurity, ForceRowSecurity  bool   // relrowsecurity, relforcerowsecurity
	IsPopulated                    bool   // relispopulated
	ReplIdent                      byte   // relreplident
}

// SequenceParams is a sequence's pg_sequence row (its parameters; not
// its state).
type SequenceParams struct {
	TypeOID                           uint32 // seqtypid
	Start, Increment, Max, Min, Cache int64
	Cycle                             bool
}

// NamespaceOwner is one pg_namespace row's name and owner.
type NamespaceOwner struct {
	OID   uint32
	Name  string
	Owner uint32
}

// equal compares two relations' details.
func (r RelationDetail) equal(o RelationDetail) bool {
	return r.OID == o.OID && r.Namespace == o.Namespace && r.Name == o.Name && r.Kind == o.Kind && r.Owner == o.Owner &&
		r.Persistence == o.Persistence && slices.Equal(r.ACL, o.ACL) && r.HasACL == o.HasACL && slices.Equal(r.RelOptions, o.RelOptions) &&
		(r.RelOptions == nil) == (o.RelOptions == nil) && r.Comment == o.Comment && r.HasComment == o.HasComment &&
		(r.Sequence == nil) == (o.Sequence == nil) && (r.Sequence == nil || *r.Sequence == *o.Sequence) && r.Class == o.Class && r.Identity == o.Identity
}

// Equal reports whether l and o hold the same facts (nil: not read).
func (l *RelationListFacts) Equal(o *RelationListFacts) bool {
	if l == nil || o == nil {
		return l == o
	}
	return (l.Relations == nil) == (o.Relations == nil) && slices.EqualFunc(l.Relations, o.Relations, RelationDetail.equal) &&
		slices.Equal(l.Namespaces, o.Namespaces)
}
