package sqlfront

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestUserTypesStaleRefuse: a followed column whose type is neither
// built-in nor among the user types read (created after the last read:
// an enum, maybe) makes pg_enum unknown and the typtype proofs fail
// rather than answer the stale list; a built-in type sidecar does not
// serve (inet) does not, and neither does a listed one. User types not
// read (a record written before) refuse pg_enum too (it answered no rows).
func TestUserTypesStaleRefuse(t *testing.T) {
	read := &wal.UserTypeFacts{
		Types:      []wal.TypeFacts{{OID: 16400, Namespace: 2200, Name: "mood", Type: 'e'}, {OID: 16399, Namespace: 2200, Name: "_mood", Elem: 16400}},
		Labels:     []wal.EnumLabel{{OID: 16401, TypeOID: 16400, SortOrder: 1, Label: "a"}},
		Namespaces: []wal.NamespaceFacts{{OID: 2200, Name: "public"}},
	}
	table := func(typ uint32, u *wal.UserTypeFacts) []Table {
		return []Table{{Name: "public.t", Schema: "public", Rel: "t", OID: 16500,
			Columns: []Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}, {Name: "c", TypeOID: typ, TypeMod: -1}}, KeyCols: []int{0},
			Facts: &wal.Facts{Kind: 'r', Schema: &wal.SchemaFacts{UserTypes: u}}}}
	}
	for _, c := range []struct {
		what  string
		typ   uint32
		u     *wal.UserTypeFacts
		known bool
	}{
		{"inet column", 869, read, true},
		{"listed enum column", 16400, read, true},
		{"listed enum's array column", 16399, read, true},
		{"column of a type created after the read", 16600, read, false},
		{"user types not read", 25, nil, false},
	} {
		tables := table(c.typ, c.u)
		rows := enumRows(&pgCatCtx{tables: tables})
		unknown := len(rows) == 1 && rows[0][0] == pgUnknown
		if unknown == c.known {
			t.Errorf("%s: pg_enum rows %d, unknown %v, want unknown %v", c.what, len(rows), unknown, !c.known)
		}
		if !unknown && len(rows) != 1 {
			t.Errorf("%s: pg_enum has %d rows, want the one label", c.what, len(rows))
		}
		if got := userTypes(tables) != nil && columnTypesKnown(tables); got != c.known {
			t.Errorf("%s: typtype proofs hold %v, want %v", c.what, got, c.known)
		}
	}
}
