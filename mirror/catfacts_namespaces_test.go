package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestNamespaceFactsRoundTrip: the schemas and information_schema types
// decode to what was encoded, also when the sequences and views before
// them were not read, with and without the server's version (a record
// written before it was read decodes as 0), with and without the
// cluster's roles.
func TestNamespaceFactsRoundTrip(t *testing.T) {
	for i, before := range []bool{true, false, true, false, true, false} {
		version := 0
		if i >= 2 {
			version = 140023
		}
		var roles []wal.RoleFacts
		var members []wal.MemberFacts
		if i >= 4 {
			roles = []wal.RoleFacts{{OID: 10, Name: "postgres", Super: true, Inherit: true, CreateRole: true, CreateDB: true, CanLogin: true,
				Replication: true, BypassRLS: true, ConnLimit: -1}, {OID: 16385, Name: "alice", CanLogin: true, ConnLimit: 3, Comment: "reads",
				ValidUntil: "2030-01-01 00:00:00+00", Config: []string{"work_mem=1MB", "search_path=s"}}, {OID: 16386, Name: "empty", Config: []string{}}}
			members = []wal.MemberFacts{{OID: 16390, Role: 16386, Member: 16385, Grantor: 10, Admin: true, Set: true}}
		}
		sf := &wal.SchemaFacts{OwnerOID: 10, Owner: "postgres", NamespacesRead: true, SequencesRead: before, ViewsRead: before, ServerVersion: version, Roles: roles, Members: members, RolesRead: i >= 4,
			Namespaces: []wal.NamespaceFacts{{OID: 11, Name: "pg_catalog", OwnerOID: 10, Owner: "postgres"},
				{OID: 2200, Name: "public", OwnerOID: 6171, Owner: "pg_database_owner"}, {OID: 16390, Name: "s", OwnerOID: 16385, Owner: "alice"}},
			SystemTypes: []wal.TypeFacts{{OID: 13232, Namespace: 13207, Owner: 10, Name: "time_stamp", Len: 8, ByVal: true, Type: 'd', Category: 'D',
				Delim: ',', Align: 'd', Storage: 'p', Array: 13231, BaseType: 1184, TypMod: 2, Default: "CURRENT_TIMESTAMP(2)", HasDefault: true},
				{OID: 13231, Namespace: 13207, Owner: 10, Name: "_time_stamp", Len: -1, Type: 'b', Category: 'A', Delim: ',', Align: 'd', Storage: 'x',
					Elem: 13232, TypMod: -1}}}
		rel := wal.Relation{OID: 7, Schema: "s", Name: "t", Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}},
			Facts: &wal.Facts{Kind: 'r', Columns: []wal.ColumnFacts{{NotNull: true}}, Schema: sf}}
		got, err := decodeRel(encodeRel(&rel))
		if err != nil {
			t.Fatal(err)
		}
		if !got.Facts.Schema.Equal(sf) {
			t.Errorf("sequences and views read %v, version %d: decoded %+v, want %+v", before, version, got.Facts.Schema, sf)
		}
	}
}
