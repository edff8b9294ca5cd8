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

// TestTypedTextAgreesWithCatalog: the heap's own parse and print of
// canonical text (its hot path) agree with the type catalog's input and
// output on each typed kind's tricky values: same value back, same text.
func TestTypedTextAgreesWithCatalog(t *testing.T) {
	cases := map[Kind][]string{
		KindInt2:        {"0", "-32768", "32767", "-1"},
		KindInt4:        {"-2147483648", "2147483647", "42"},
		KindInt8:        {"-9223372036854775808", "9223372036854775807"},
		KindFloat4:      {"0", "-0", "1.5", "3.4028235e+38", "1e-45", "NaN", "Infinity", "-Infinity", "0.1", "100000", "1e+06"},
		KindFloat8:      {"0", "-0", "1e+308", "5e-324", "0.1", "3.141592653589793", "1e+15", "1e-05", "0.0001", "NaN"},
		KindBool:        {"t", "f"},
		KindDate:        {"2000-01-01", "2024-02-29", "0001-01-01 BC", "4713-11-24 BC", "5874897-12-31", "10000-01-01", "infinity", "-infinity"},
		KindTimestamp:   {"2000-01-01 00:00:00", "2024-02-29 12:34:56.789", "0044-03-15 12:00:00 BC", "294276-12-31 23:59:59.999999", "infinity", "-infinity"},
		KindTimestampTZ: {"2000-01-01 00:00:00+00", "1999-12-31 23:59:59.5+00", "0001-01-01 00:00:00+00 BC", "-infinity"},
		KindNumeric:     {"0", "-1.50", "123456789012345678", "0.000001", "-99999999999999999.9"},
	}
	for k, texts := range cases {
		oid := types.PhysicalType(types.Physical(k))
		for _, text := range texts {
			v, err := types.In(oid, -1, text)
			if err != nil {
				t.Errorf("%v %q: catalog: %v", k, text, err)
				continue
			}
			if got := types.Out(oid, v); got != text {
				t.Errorf("%v %q: catalog prints %q", k, text, got)
			}
			tv, err := parseTyped(k, []byte(text))
			if err != nil || tv.exc {
				t.Errorf("%v %q: heap parse %+v, %v", k, text, tv, err)
				continue
			}
			if got := string(appendTyped(nil, k, tv.i, tv.f, tv.scale)); got != text {
				t.Errorf("%v %q: heap prints %q", k, text, got)
			}
			var same bool
			switch x := v.(type) {
			case int64:
				same = x == tv.i
			case bool:
				same = x == (tv.i != 0)
			case float64:
				same = types.CompareFloat(x, tv.f) == 0
			case types.DateVal:
				same = int64(x) == tv.i
			case types.TimestampVal:
				same = int64(x) == tv.i
			case *types.Decimal:
				same = x.V.Int64() == tv.i && x.Scale == int32(tv.scale)
			}
			if !same {
				t.Errorf("%v %q: catalog value %v, heap %+v", k, text, v, tv)
			}
		}
	}
}
