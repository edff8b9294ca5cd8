package sqlfront

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestDomainBaseAssumedAsOf: a table version whose relation record lacks
// its columns' types (written before mirror section 't': AS OF a version
// before the next resync) describes a domain column by the base type and
// typmod the same domain has at HEAD, in RowDescription (flatColumnType,
// planColumnType) and in sidecar.diff (valueColumn): it named the
// domain's OID, which PostgreSQL never sends. A type HEAD does not know
// as a domain (an enum) keeps its own OID, as PostgreSQL describes it.
func TestDomainBaseAssumedAsOf(t *testing.T) {
	const posint, v10, mood, gone = 16400, 16401, 16402, 16403
	head := Table{Name: "public.dt",
		Columns: []Column{{Name: "id", TypeOID: oidInt4, TypeMod: -1}, {Name: "p", TypeOID: posint, TypeMod: -1},
			{Name: "v", TypeOID: v10, TypeMod: -1}, {Name: "m", TypeOID: mood, TypeMod: -1}},
		Facts: &wal.Facts{ColumnTypes: []wal.ColumnType{{BaseType: oidInt4, BaseMod: -1}, {BaseType: oidInt4, BaseMod: -1},
			{BaseType: oidVarchar, BaseMod: 14}, {BaseType: mood, BaseMod: -1, Kind: 'e'}}}}
	old := Table{Name: "public.dt", // the record before: no facts
		Columns: []Column{{Name: "id", TypeOID: oidInt4, TypeMod: -1}, {Name: "p", TypeOID: posint, TypeMod: -1},
			{Name: "v", TypeOID: v10, TypeMod: -1}, {Name: "m", TypeOID: mood, TypeMod: -1}, {Name: "g", TypeOID: gone, TypeMod: -1}}}
	shared := old.Columns
	assumeColumnTypes(&old, []Table{head})
	for i, want := range []struct {
		oid uint32
		mod int32
	}{{oidInt4, -1}, {oidInt4, -1}, {oidVarchar, 14}, {mood, -1}, {gone, -1}} {
		c := old.Columns[i]
		if v := valueColumn(&old, i, c.Name); v.TypeOID != want.oid || v.TypeMod != want.mod {
			t.Errorf("sidecar.diff column %s: type %d(%d), want %d(%d)", c.Name, v.TypeOID, v.TypeMod, want.oid, want.mod)
		}
		if p := planColumnType(&old, i); p.OID != want.oid || p.Mod != want.mod {
			t.Errorf("sql/exec column %s: type %d(%d), want %d(%d)", c.Name, p.OID, p.Mod, want.oid, want.mod)
		}
	}
	if typ, _, _ := flatColumnType(&old, 1); typ != oidInt4 {
		t.Errorf("flat planner column p: type %d, want int4", typ)
	}
	if shared[1].Base != 0 {
		t.Errorf("the cached table's columns were changed")
	}
}
