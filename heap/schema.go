package heap

import (
	"fmt"

	"github.com/sidecar-dev/sidecar/types"
)

// Kind is how one column is held in a page segment. Every kind keeps enough
// to give back the column's canonical text (the vrow1 bytes) exactly.
type Kind uint8

const (
	// KindText: the text's bytes (text, varchar, bpchar, bytea in hex,
	// uuid, json, every type without a dedicated kind). Varlen segment.
	KindText Kind = iota + 1
	// KindInt2, KindInt4, KindInt8: Int64s segment.
	KindInt2
	KindInt4
	KindInt8
	// KindFloat4, KindFloat8: Float64s segment (a float4 is held as the
	// float64 of the same value, which is exact). NaN, ±Infinity and -0 are
	// values like any other.
	KindFloat4
	KindFloat8
	// KindNumeric: Int64s holds the unscaled value and Scales the display
	// scale (value = unscaled / 10^scale), exact. Values that do not fit
	// (more than 18 significant digits, scale above 255, NaN, ±Infinity)
	// are exceptions: their text is in the varlen segment and their bit is
	// set in Exceptions; kernels parse those few (see ParseNumeric).
	KindNumeric
	// KindBool: Int64s holds 0 (f) or 1 (t).
	KindBool
	// KindDate: Int64s holds days since 2000-01-01 (PostgreSQL's DateADT);
	// -infinity and infinity are math.MinInt32 and math.MaxInt32, as in
	// PostgreSQL, so integer order is date order.
	KindDate
	// KindTimestamp, KindTimestampTZ: Int64s holds microseconds since
	// 2000-01-01 00:00:00 (UTC for timestamptz); ±infinity are
	// math.MinInt64 and math.MaxInt64, so integer order is time order.
	KindTimestamp
	KindTimestampTZ
	numKinds
)

var kindNames = [...]string{
	KindText: "text", KindInt2: "int2", KindInt4: "int4", KindInt8: "int8",
	KindFloat4: "float4", KindFloat8: "float8", KindNumeric: "numeric", KindBool: "bool",
	KindDate: "date", KindTimestamp: "timestamp", KindTimestampTZ: "timestamptz",
}

// String returns the kind's name.
func (k Kind) String() string {
	if k == 0 || k >= numKinds {
		return fmt.Sprintf("Kind(%d)", uint8(k))
	}
	return kindNames[k]
}

// IsInt reports whether the kind's values are in an Int64s segment
// (integers, bool, dates, timestamps, numeric's unscaled values).
func (k Kind) IsInt() bool {
	switch k {
	case KindInt2, KindInt4, KindInt8, KindBool, KindDate, KindTimestamp, KindTimestampTZ, KindNumeric:
		return true
	}
	return false
}

// IsFloat reports whether the kind's values are in a Float64s segment.
func (k Kind) IsFloat() bool { return k == KindFloat4 || k == KindFloat8 }

// valid reports whether k is one of the kinds above.
func (k Kind) valid() bool { return k > 0 && k < numKinds }

// KindForOID returns the kind for a column type OID as carried by
// pgoutput's Relation message: the type catalog's physical kind. Unknown
// and non-built-in OIDs (enums, domains, arrays, uuid, json, bytea, text)
// are KindText: kept as their text.
func KindForOID(oid uint32) Kind { return Kind(types.PhysicalOf(oid)) }

// KindForType returns the kind for a type name as pg_type.typname or
// format_type prints it ("int4", "double precision", "numeric(12,2)");
// names the catalog does not know are KindText.
func KindForType(name string) Kind {
	t, _, err := types.Parse(name)
	if err != nil {
		return KindText
	}
	return Kind(t.Physical)
}

// Column is one column of a table's schema.
type Column struct {
	Name string
	Kind Kind
}

// Schema is the ordered column list of one table: a vrow1 row of the
// table has exactly len(Columns) columns.
type Schema struct {
	Columns []Column
}

// validate checks the schema is usable.
func (s Schema) validate() error {
	if len(s.Columns) == 0 {
		return fmt.Errorf("heap schema: no columns")
	}
	if len(s.Columns) > maxColumns {
		return fmt.Errorf("heap schema: %d columns (at most %d)", len(s.Columns), maxColumns)
	}
	for i, c := range s.Columns {
		if !c.Kind.valid() {
			return fmt.Errorf("heap schema: column %d (%q): unknown kind %d", i, c.Name, c.Kind)
		}
	}
	return nil
}

// maxColumns is PostgreSQL's MaxHeapAttributeNumber.
const maxColumns = 1600
