package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The schemas and information_schema types of a table's database
// (wal.SchemaFacts.Namespaces, SystemTypes) follow the views in the
// schema facts body: a flag, then the schemas, then the types. A record
// written before they were read ends before the flag and decodes with
// NamespacesRead false (the SQL port then refuses what they answer).
// The flag's second bit says the source's server_version_num
// (ServerVersion) follows the types; a record written before has it
// unset and decodes with ServerVersion 0 (not read). The third bit: the
// cluster's roles follow (catfacts_roles.go).

func encodeNamespaces(b *enc, s *wal.SchemaFacts) {
	b.byte(flagBits(true, s.ServerVersion != 0, s.RolesRead))
	encodeNamespaceList(b, s.Namespaces)
	b.uvarint(uint64(len(s.SystemTypes)))
	for _, t := range s.SystemTypes {
		b.uvarint(uint64(t.OID))
		b.uvarint(uint64(t.Namespace))
		b.uvarint(uint64(t.Owner))
		b.str(t.Name)
		b.varint(int64(t.Len))
		b.byte(flagBits(t.ByVal, t.NotNull, t.HasDefault))
		b.byte(t.Type)
		b.byte(t.Category)
		b.byte(t.Delim)
		b.byte(t.Align)
		b.byte(t.Storage)
		b.uvarint(uint64(t.Elem))
		b.uvarint(uint64(t.Array))
		b.uvarint(uint64(t.BaseType))
		b.varint(int64(t.TypMod))
		b.uvarint(uint64(t.Collation))
		b.str(t.Default)
	}
	if s.ServerVersion != 0 {
		b.uvarint(uint64(s.ServerVersion))
	}
	if s.RolesRead {
		encodeRoles(b, s) // catfacts_roles.go
	}
}

// decodeNamespaces reads what encodeNamespaces wrote after its flags.
func decodeNamespaces(b *dec, s *wal.SchemaFacts, flags byte) {
	if flags&1 == 0 {
		return
	}
	s.NamespacesRead = true
	s.Namespaces = decodeNamespaceList(b)
	n := b.count()
	for i := 0; i < n && b.err == nil; i++ {
		t := wal.TypeFacts{OID: uint32(b.uvarint()), Namespace: uint32(b.uvarint()), Owner: uint32(b.uvarint()), Name: b.str(), Len: int16(b.varint())}
		fl := b.byte()
		t.ByVal, t.NotNull, t.HasDefault = fl&1 != 0, fl&2 != 0, fl&4 != 0
		t.Type, t.Category, t.Delim, t.Align, t.Storage = b.byte(), b.byte(), b.byte(), b.byte(), b.byte()
		t.Elem, t.Array, t.BaseType = uint32(b.uvarint()), uint32(b.uvarint()), uint32(b.uvarint())
		t.TypMod, t.Collation, t.Default = int32(b.varint()), uint32(b.uvarint()), b.str()
		s.SystemTypes = append(s.SystemTypes, t)
	}
	if flags&2 != 0 && b.err == nil {
		s.ServerVersion = int(b.uvarint())
	}
	if flags&4 != 0 && b.err == nil {
		decodeRoles(b, s)
	}
}

// encodeNamespaceList writes pg_namespace rows (the schemas read with a
// table, and those holding the database's user types).
func encodeNamespaceList(b *enc, ns []wal.NamespaceFacts) {
	b.uvarint(uint64(len(ns)))
	for _, n := range ns {
		b.uvarint(uint64(n.OID))
		b.str(n.Name)
		b.uvarint(uint64(n.OwnerOID))
		b.str(n.Owner)
	}
}

// decodeNamespaceList reads what encodeNamespaceList wrote.
func decodeNamespaceList(b *dec) []wal.NamespaceFacts {
	var out []wal.NamespaceFacts
	for n := b.count(); n > 0 && b.err == nil; n-- {
		out = append(out, wal.NamespaceFacts{OID: uint32(b.uvarint()), Name: b.str(), OwnerOID: uint32(b.uvarint()), Owner: b.str()})
	}
	return out
}
