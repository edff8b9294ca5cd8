package heap

import (
	"testing"

	"github.com/sidecar-dev/sidecar/types"
)

// TestKindsAreTheCatalogs: heap.Kind's values are the type catalog's
// physical kinds, in the same order (KindForOID converts one to the
// other).
func TestKindsAreTheCatalogs(t *testing.T) {
	pairs := map[Kind]types.Physical{
		KindText: types.PhysText, KindInt2: types.PhysInt2, KindInt4: types.PhysInt4, KindInt8: types.PhysInt8,
		KindFloat4: types.PhysFloat4, KindFloat8: types.PhysFloat8, KindNumeric: types.PhysNumeric, KindBool: types.PhysBool,
		KindDate: types.PhysDate, KindTimestamp: types.PhysTimestamp, KindTimestampTZ: types.PhysTimestampTZ,
	}
	if len(pairs) != int(numKinds)-1 {
		t.Fatalf("%d kinds paired, heap has %d", len(pairs), numKinds-1)
	}
	for k, p := range pairs {
		if uint8(k) != uint8(p) {
			t.Errorf("heap kind %v is %d, the catalog's physical kind %d", k, k, p)
		}
	}
	for name, want := range map[string]Kind{
		"int4": KindInt4, "integer": KindInt4, "double precision": KindFloat8, "numeric(12,2)": KindNumeric,
		"timestamp(3) with time zone": KindTimestampTZ, "text[]": KindText, "character varying(5)": KindText,
		"public.mood": KindText, "float": KindFloat8, "real": KindFloat4, "oid": KindText, "uuid": KindText,
	} {
		if got := KindForType(name); got != want {
			t.Errorf("KindForType(%q) = %v, want %v", name, got, want)
		}
	}
}
