package wal

import "slices"

// NamespaceFacts is one pg_namespace row of the source database.
type NamespaceFacts struct {
	OID      uint32
	Name     string
	OwnerOID uint32 // nspowner
	Owner    string // pg_get_userbyid(nspowner)
}

// TypeFacts is one pg_type row of the source database sidecar lists
// beside the built-in types it serves: information_schema's domains and
// their array types, whose OIDs (like information_schema's own) are
// assigned by initdb and differ between clusters.
type TypeFacts struct {
	OID, Namespace, Owner uint32
	Name                  string
	Len                   int16
	ByVal                 bool
	Type, Category, Delim byte // typtype, typcategory, typdelim
	Align, Storage        byte // typalign, typstorage
	Elem, Array           uint32
	NotNull               bool
	BaseType              uint32
	TypMod                int32
	Collation             uint32
	// Default is typdefault; HasDefault says it is not NULL.
	Default    string
	HasDefault bool
	// NDims is typndims (a domain over an array; not read for
	// information_schema's, whose are 0).
	NDims int32
}

// namespacesEqual reports whether s and o read the same schemas and
// information_schema types.
func (s *SchemaFacts) namespacesEqual(o *SchemaFacts) bool {
	return s.NamespacesRead == o.NamespacesRead && s.ServerVersion == o.ServerVersion && slices.Equal(s.Namespaces, o.Namespaces) && slices.Equal(s.SystemTypes, o.SystemTypes)
}
