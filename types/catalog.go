package types

import (
	"strconv"
	"strings"
)

// OID is a pg_type.oid.
type OID = uint32

// Built-in type OIDs (fixed across PostgreSQL versions).
const (
	Bool        OID = 16
	Bytea       OID = 17
	Char        OID = 18 // "char": one byte
	Name        OID = 19
	Int8        OID = 20
	Int2        OID = 21
	Int4        OID = 23
	Text        OID = 25
	Oid         OID = 26
	JSON        OID = 114
	Float4      OID = 700
	Float8      OID = 701
	Unknown     OID = 705
	Bpchar      OID = 1042
	Varchar     OID = 1043
	Date        OID = 1082
	Time        OID = 1083
	Timestamp   OID = 1114
	Timestamptz OID = 1184
	Interval    OID = 1186
	Timetz      OID = 1266
	Numeric     OID = 1700
	UUID        OID = 2950
	JSONB       OID = 3802
	JSONPath    OID = 4072
)

// Category is pg_type.typcategory.
type Category byte

// The categories of the types in the catalog.
const (
	CatBoolean  Category = 'B'
	CatDateTime Category = 'D'
	CatNumeric  Category = 'N'
	CatString   Category = 'S'
	CatTimespan Category = 'T'
	CatUser     Category = 'U'
	CatArray    Category = 'A'
	CatInternal Category = 'Z'
	CatNetwork  Category = 'I'
	CatBitStr   Category = 'V'
	CatUnknown  Category = 'X'
)

// Physical is how the heap stores a column of a type in its page
// segments. The values are heap.Kind's, in the same order.
type Physical uint8

// The physical kinds.
const (
	PhysText Physical = iota + 1 // the canonical text's bytes
	PhysInt2
	PhysInt4
	PhysInt8
	PhysFloat4
	PhysFloat8
	PhysNumeric
	PhysBool
	PhysDate
	PhysTimestamp
	PhysTimestampTZ
)

// ModKind says what a type's typmod means.
type ModKind uint8

// The typmod meanings.
const (
	TypmodNone      ModKind = iota // no modifier
	TypmodLength                   // varchar(n), bpchar(n): typmod = n + 4
	TypmodNumeric                  // numeric(p,s): typmod = (p<<16 | s&0xffff) + 4
	TypmodPrecision                // time(p), timestamp(p), interval(p): typmod = p
	TypmodBits                     // bit(n), varbit(n): typmod = n
)

// Type is one catalog entry: the pg_type facts the sidecar uses.
type Type struct {
	OID       OID
	Name      string // pg_type.typname: "int4"
	SQLName   string // format_type(oid, NULL): "integer"
	Array     OID    // pg_type.typarray (0: none)
	Elem      OID    // pg_type.typelem of an array type; of name it is char, as PostgreSQL says
	Len       int16  // pg_type.typlen
	Category  Category
	Preferred bool
	Physical  Physical
	Mod       ModKind
}

var catalog = []Type{
	{OID: Bool, Name: "bool", SQLName: "boolean", Array: 1000, Len: 1, Category: CatBoolean, Preferred: true, Physical: PhysBool},
	{OID: Bytea, Name: "bytea", SQLName: "bytea", Array: 1001, Len: -1, Category: CatUser, Physical: PhysText},
	{OID: Char, Name: "char", SQLName: `"char"`, Array: 1002, Len: 1, Category: CatInternal, Physical: PhysText},
	{OID: Name, Name: "name", SQLName: "name", Array: 1003, Elem: Char, Len: 64, Category: CatString, Physical: PhysText},
	{OID: Int8, Name: "int8", SQLName: "bigint", Array: 1016, Len: 8, Category: CatNumeric, Physical: PhysInt8},
	{OID: Int2, Name: "int2", SQLName: "smallint", Array: 1005, Len: 2, Category: CatNumeric, Physical: PhysInt2},
	{OID: Int4, Name: "int4", SQLName: "integer", Array: 1007, Len: 4, Category: CatNumeric, Physical: PhysInt4},
	{OID: Text, Name: "text", SQLName: "text", Array: 1009, Len: -1, Category: CatString, Preferred: true, Physical: PhysText},
	// oid is held as text by the heap today (its range exceeds int4's).
	{OID: Oid, Name: "oid", SQLName: "oid", Array: 1028, Len: 4, Category: CatNumeric, Preferred: true, Physical: PhysText},
	{OID: JSON, Name: "json", SQLName: "json", Array: 199, Len: -1, Category: CatUser, Physical: PhysText},
	{OID: Float4, Name: "float4", SQLName: "real", Array: 1021, Len: 4, Category: CatNumeric, Physical: PhysFloat4},
	{OID: Float8, Name: "float8", SQLName: "double precision", Array: 1022, Len: 8, Category: CatNumeric, Preferred: true, Physical: PhysFloat8},
	{OID: Unknown, Name: "unknown", SQLName: "unknown", Len: -2, Category: CatUnknown, Physical: PhysText},
	{OID: Bpchar, Name: "bpchar", SQLName: "character", Array: 1014, Len: -1, Category: CatString, Physical: PhysText, Mod: TypmodLength},
	{OID: Varchar, Name: "varchar", SQLName: "character varying", Array: 1015, Len: -1, Category: CatString, Physical: PhysText, Mod: TypmodLength},
	{OID: Date, Name: "date", SQLName: "date", Array: 1182, Len: 4, Category: CatDateTime, Physical: PhysDate},
	{OID: Time, Name: "time", SQLName: "time without time zone", Array: 1183, Len: 8, Category: CatDateTime, Physical: PhysText, Mod: TypmodPrecision},
	{OID: Timestamp, Name: "timestamp", SQLName: "timestamp without time zone", Array: 1115, Len: 8, Category: CatDateTime, Physical: PhysTimestamp, Mod: TypmodPrecision},
	{OID: Timestamptz, Name: "timestamptz", SQLName: "timestamp with time zone", Array: 1185, Len: 8, Category: CatDateTime, Preferred: true, Physical: PhysTimestampTZ, Mod: TypmodPrecision},
	{OID: Interval, Name: "interval", SQLName: "interval", Array: 1187, Len: 16, Category: CatTimespan, Preferred: true, Physical: PhysText, Mod: TypmodPrecision},
	{OID: Timetz, Name: "timetz", SQLName: "time with time zone", Array: 1270, Len: 12, Category: CatDateTime, Physical: PhysText, Mod: TypmodPrecision},
	{OID: Numeric, Name: "numeric", SQLName: "numeric", Array: 1231, Len: -1, Category: CatNumeric, Physical: PhysNumeric, Mod: TypmodNumeric},
	{OID: UUID, Name: "uuid", SQLName: "uuid", Array: 2951, Len: 16, Category: CatUser, Physical: PhysText},
	// The network types (inet.go, macaddr.go).
	{OID: Inet, Name: "inet", SQLName: "inet", Array: 1041, Len: -1, Category: CatNetwork, Preferred: true, Physical: PhysText},
	{OID: Cidr, Name: "cidr", SQLName: "cidr", Array: 651, Len: -1, Category: CatNetwork, Physical: PhysText},
	{OID: Macaddr, Name: "macaddr", SQLName: "macaddr", Array: 1040, Len: 6, Category: CatUser, Physical: PhysText},
	{OID: Macaddr8, Name: "macaddr8", SQLName: "macaddr8", Array: 775, Len: 8, Category: CatUser, Physical: PhysText},
	// money (money.go) and the bit strings (bit.go).
	{OID: Money, Name: "money", SQLName: "money", Array: 791, Len: 8, Category: CatNumeric, Physical: PhysText},
	{OID: Bit, Name: "bit", SQLName: "bit", Array: 1561, Len: -1, Category: CatBitStr, Physical: PhysText, Mod: TypmodBits},
	{OID: Varbit, Name: "varbit", SQLName: "bit varying", Array: 1563, Len: -1, Category: CatBitStr, Preferred: true, Physical: PhysText, Mod: TypmodBits},
	// The built-in range types (rangetype.go).
	{OID: Int4range, Name: "int4range", SQLName: "int4range", Array: 3905, Len: -1, Category: CatRange, Physical: PhysText},
	{OID: Int8range, Name: "int8range", SQLName: "int8range", Array: 3927, Len: -1, Category: CatRange, Physical: PhysText},
	{OID: Numrange, Name: "numrange", SQLName: "numrange", Array: 3907, Len: -1, Category: CatRange, Physical: PhysText},
	{OID: Daterange, Name: "daterange", SQLName: "daterange", Array: 3913, Len: -1, Category: CatRange, Physical: PhysText},
	{OID: Tsrange, Name: "tsrange", SQLName: "tsrange", Array: 3909, Len: -1, Category: CatRange, Physical: PhysText},
	{OID: Tstzrange, Name: "tstzrange", SQLName: "tstzrange", Array: 3911, Len: -1, Category: CatRange, Physical: PhysText},
	{OID: JSONB, Name: "jsonb", SQLName: "jsonb", Array: 3807, Len: -1, Category: CatUser, Physical: PhysText},
	// jsonpath: kept as jsonpath_out prints it (jsonpath.go).
	{OID: JSONPath, Name: "jsonpath", SQLName: "jsonpath", Array: 4073, Len: -1, Category: CatUser, Physical: PhysText},
	// The catalog's vectors (vector.go): arrays of lower bound 0.
	{OID: Int2Vector, Name: "int2vector", SQLName: "int2vector", Array: 1006, Elem: Int2, Len: -1, Category: CatArray, Physical: PhysText},
	{OID: OidVector, Name: "oidvector", SQLName: "oidvector", Array: 1013, Elem: Oid, Len: -1, Category: CatArray, Physical: PhysText},
	// pg_node_tree: an expression's node tree as PostgreSQL prints it
	// (pg_index.indexprs), only output.
	{OID: NodeTree, Name: "pg_node_tree", SQLName: "pg_node_tree", Len: -1, Category: CatInternal, Physical: PhysText},
}

// byOID indexes catalog; arrays index their element's entry with the
// array's own facts derived on lookup.
var byOID = func() map[OID]*Type {
	m := make(map[OID]*Type, 2*len(catalog))
	for i := range catalog {
		t := &catalog[i]
		m[t.OID] = t
		if t.Array != 0 {
			m[t.Array] = &Type{OID: t.Array, Name: "_" + t.Name, SQLName: t.SQLName + "[]", Elem: t.OID,
				Len: -1, Category: CatArray, Physical: PhysText, Mod: t.Mod}
		}
	}
	return m
}()

// Lookup returns the catalog entry of oid; ok is false for types the
// catalog does not know (enums, domains, extension types), which callers
// carry as their output text with equality only.
func Lookup(oid OID) (*Type, bool) {
	t, ok := byOID[oid]
	return t, ok
}

// Known reports whether oid is in the catalog.
func Known(oid OID) bool { _, ok := byOID[oid]; return ok }

// PhysicalOf is the heap's physical kind for a column of type oid
// (PhysText for types the catalog does not know).
func PhysicalOf(oid OID) Physical {
	if t, ok := byOID[oid]; ok {
		return t.Physical
	}
	return PhysText
}

// NameOf is format_type(oid, NULL) for messages ("integer", "type 12345"
// for an OID the catalog does not know).
func NameOf(oid OID) string {
	if t, ok := byOID[oid]; ok {
		return t.SQLName
	}
	return "type " + strconv.FormatUint(uint64(oid), 10)
}

// typeAliases are the SQL spellings of type names the grammar and
// format_type use, beside the typnames.
var typeAliases = map[string]OID{
	"boolean": Bool, "smallint": Int2, "integer": Int4, "int": Int4, "bigint": Int8,
	"real": Float4, "double precision": Float8, "float": Float8, "decimal": Numeric, "dec": Numeric,
	"character varying": Varchar, "char varying": Varchar, "character": Bpchar, "char": Bpchar,
	`"char"`: Char, "time without time zone": Time, "time with time zone": Timetz,
	"timestamp without time zone": Timestamp, "timestamp with time zone": Timestamptz,
	"bit varying": Varbit,
}

// Parse reads a type name as SQL or format_type writes it ("int4",
// "integer", "numeric(12,2)", "character varying(10)", "timestamp(3)
// with time zone", "pg_catalog.int8", "text[]") and returns its entry and
// typmod (-1 without a modifier). Note that the SQL spelling char is
// bpchar and "char" (quoted) the one-byte type.
func Parse(name string) (*Type, int32, error) {
	n := strings.ToLower(strings.Join(strings.Fields(name), " "))
	n = strings.TrimPrefix(n, "pg_catalog.")
	array := false
	if strings.HasSuffix(n, "[]") {
		array, n = true, strings.TrimSpace(strings.TrimSuffix(n, "[]"))
	}
	var args []string
	if i := strings.IndexByte(n, '('); i >= 0 {
		j := strings.IndexByte(n, ')')
		if j < i {
			return nil, -1, errorf(CodeSyntax, "syntax error in type name %q", name)
		}
		for _, a := range strings.Split(n[i+1:j], ",") {
			args = append(args, strings.TrimSpace(a))
		}
		n = strings.TrimSpace(strings.Join(strings.Fields(n[:i]+" "+n[j+1:]), " "))
	}
	var t *Type
	if oid, ok := typeAliases[n]; ok {
		t = byOID[oid]
	} else {
		for i := range catalog {
			if catalog[i].Name == n && catalog[i].OID != Char {
				t = &catalog[i]
			}
		}
		if n == "float4" || n == "float8" {
			t = byOID[map[string]OID{"float4": Float4, "float8": Float8}[n]]
		}
	}
	if t == nil {
		return nil, -1, errorf(CodeUndefinedObject, "type \"%s\" does not exist", strings.TrimSpace(name))
	}
	if n == "float" && len(args) == 1 {
		// float(p): real for p ≤ 24, double precision up to 53.
		p, err := strconv.Atoi(args[0])
		if err != nil || p < 1 || p > 53 {
			return nil, -1, errorf(CodeInvalidParam, "precision for type float must be between 1 and 53 bits")
		}
		if p <= 24 {
			t = byOID[Float4]
		}
		args = nil
	}
	mod, err := t.makeMod(args)
	if err != nil {
		return nil, -1, err
	}
	if n == "char" || n == "character" {
		if mod < 0 {
			mod = 1 + 4 // bare char means char(1)
		}
	}
	if n == "bit" && mod < 0 {
		mod = 1 // bare bit means bit(1)
	}
	if array {
		return byOID[t.Array], mod, nil
	}
	return t, mod, nil
}

// makeMod turns the modifier arguments of a type name into its typmod,
// as the type's typmodin does.
func (t *Type) makeMod(args []string) (int32, error) {
	if len(args) == 0 {
		return -1, nil
	}
	nums := make([]int, len(args))
	for i, a := range args {
		v, err := strconv.Atoi(a)
		if err != nil {
			return -1, errorf(CodeSyntax, "type modifiers must be simple constants or identifiers")
		}
		nums[i] = v
	}
	switch t.Mod {
	case TypmodLength:
		if len(nums) != 1 {
			return -1, errorf(CodeInvalidParam, "invalid type modifier")
		}
		if nums[0] < 1 {
			return -1, errorf(CodeInvalidParam, "length for type %s must be at least 1", t.Name)
		}
		if nums[0] > 10485760 {
			return -1, errorf(CodeInvalidParam, "length for type %s cannot exceed 10485760", t.Name)
		}
		return int32(nums[0] + 4), nil
	case TypmodNumeric:
		if len(nums) > 2 {
			return -1, errorf(CodeInvalidParam, "invalid NUMERIC type modifier")
		}
		p, s := nums[0], 0
		if len(nums) == 2 {
			s = nums[1]
		}
		if p < 1 || p > 1000 {
			return -1, errorf(CodeInvalidParam, "NUMERIC precision %d must be between 1 and 1000", p)
		}
		if s < -1000 || s > 1000 {
			return -1, errorf(CodeInvalidParam, "NUMERIC scale %d must be between -1000 and 1000", s)
		}
		return int32(p<<16|(s&0x7ff)) + 4, nil
	case TypmodPrecision:
		if len(nums) != 1 {
			return -1, errorf(CodeInvalidParam, "invalid type modifier")
		}
		if nums[0] < 0 {
			return -1, errorf(CodeInvalidParam, "%s(%d) precision must not be negative", strings.ToUpper(t.SQLName), nums[0])
		}
		p := int32(min(nums[0], 6))
		if t.OID == Interval {
			return IntervalFullRange<<16 | p, nil
		}
		return p, nil
	}
	if t.Mod == TypmodBits {
		// bittypmodin/varbittypmodin
		if len(nums) != 1 {
			return -1, errorf(CodeInvalidParam, "invalid type modifier")
		}
		if nums[0] < 1 {
			return -1, errorf(CodeInvalidParam, "length for type %s must be at least 1", t.Name)
		}
		if nums[0] > maxBitLen {
			return -1, errorf(CodeInvalidParam, "length for type %s cannot exceed %d", t.Name, maxBitLen)
		}
		return int32(nums[0]), nil
	}
	return -1, errorf(CodeSyntax, "type modifier is not allowed for type \"%s\"", t.Name)
}

// NumericMod splits a numeric typmod into precision and scale (ok=false
// for -1, no modifier).
func NumericMod(mod int32) (precision, scale int, ok bool) {
	if mod < 4 {
		return 0, 0, false
	}
	m := mod - 4
	return int(m>>16) & 0xffff, (int(m&0x7ff) ^ 1024) - 1024, true
}

// IntervalFullRange is INTERVAL_FULL_RANGE, the fields part of an
// interval typmod without YEAR/MONTH/… fields.
const IntervalFullRange = 0x7FFF

// PrecisionOf is the fractional-second precision of a time, timestamp
// or interval typmod (-1 for none).
func PrecisionOf(oid OID, mod int32) int32 {
	if mod < 0 {
		return -1
	}
	if oid == Interval {
		p := mod & 0xFFFF
		if p == 0xFFFF {
			return -1
		}
		return p
	}
	return mod
}

// Format is format_type(t, mod): the type's SQL name with its modifier.
func (t *Type) Format(mod int32) string {
	if t.Category == CatArray {
		return byOID[t.Elem].Format(mod) + "[]"
	}
	if mod < 0 || t.Mod == TypmodNone {
		if t.OID == Bpchar {
			return "bpchar" // format_type's spelling without a length
		}
		return t.SQLName
	}
	var m string
	switch t.Mod {
	case TypmodLength:
		m = "(" + strconv.Itoa(int(mod-4)) + ")"
	case TypmodNumeric:
		p, s, _ := NumericMod(mod)
		m = "(" + strconv.Itoa(p) + "," + strconv.Itoa(s) + ")"
	case TypmodPrecision:
		m = "(" + strconv.Itoa(int(PrecisionOf(t.OID, mod))) + ")"
		if t.OID == Interval {
			m, _ = intervalModText(mod) // intervalmod.go
		}
	case TypmodBits:
		m = bitModText(mod) // bit.go
	}
	switch t.OID {
	case Time, Timetz, Timestamp, Timestamptz:
		base, zone, _ := strings.Cut(t.SQLName, " ")
		return base + m + " " + zone
	}
	return t.SQLName + m
}

// PhysicalType is the type a value of physical kind p is taken as when
// only the kind is known (the query engine's columns): text for PhysText.
func PhysicalType(p Physical) OID {
	switch p {
	case PhysInt2:
		return Int2
	case PhysInt4:
		return Int4
	case PhysInt8:
		return Int8
	case PhysFloat4:
		return Float4
	case PhysFloat8:
		return Float8
	case PhysNumeric:
		return Numeric
	case PhysBool:
		return Bool
	case PhysDate:
		return Date
	case PhysTimestamp:
		return Timestamp
	case PhysTimestampTZ:
		return Timestamptz
	}
	return Text
}
