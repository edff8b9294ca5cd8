package plan

import (
	"fmt"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// OID is a PostgreSQL type OID (pg_type.oid).
type OID = uint32

// The type OIDs the planner names (pg_type.oid; the same constants as
// types/).
const (
	Unknown     OID = 705
	Bool        OID = 16
	Bytea       OID = 17
	Char        OID = 18
	Name        OID = 19
	Int8        OID = 20
	Int2        OID = 21
	Int4        OID = 23
	Text        OID = 25
	Oid         OID = 26
	Float4      OID = 700
	Float8      OID = 701
	Bpchar      OID = 1042
	Varchar     OID = 1043
	Date        OID = 1082
	Time        OID = 1083
	Timestamp   OID = 1114
	Timestamptz OID = 1184
	Interval    OID = 1186
	Numeric     OID = 1700
	UUID        OID = 2950
	JSON        OID = 114
	JSONB       OID = 3802
	Record      OID = 2249
)

// Type is a column or expression type: an OID and its typmod (-1: none).
type Type struct {
	OID OID
	Mod int32
}

// T is the type oid without a typmod.
func T(oid OID) Type { return Type{OID: oid, Mod: -1} }

var typeNames = map[OID]string{
	Unknown: "unknown", Bool: "bool", Bytea: "bytea", Char: "char", Name: "name",
	Int8: "int8", Int2: "int2", Int4: "int4", Text: "text", Oid: "oid",
	Float4: "float4", Float8: "float8", Bpchar: "bpchar", Varchar: "varchar",
	Date: "date", Time: "time", Timestamp: "timestamp", Timestamptz: "timestamptz",
	Interval: "interval", Numeric: "numeric", UUID: "uuid", JSON: "json", JSONB: "jsonb", types.JSONPath: "jsonpath", Record: "record",
	types.Inet: "inet", types.Cidr: "cidr", types.Macaddr: "macaddr", types.Macaddr8: "macaddr8",
	types.Money: "money", types.Bit: "bit", types.Varbit: "varbit",
	types.Int4range: "int4range", types.Int8range: "int8range", types.Numrange: "numrange",
	types.Daterange: "daterange", types.Tsrange: "tsrange", types.Tstzrange: "tstzrange",
}

// String is the type's pg_type.typname with its modifier, as EXPLAIN
// prints it.
func (t Type) String() string {
	n, ok := typeNames[t.OID]
	if !ok && types.IsArray(t.OID) {
		return Type{OID: types.ElemOf(t.OID), Mod: t.Mod}.String() + "[]"
	}
	if !ok {
		n = fmt.Sprintf("oid%d", t.OID)
	}
	if t.Mod < 0 {
		return n
	}
	switch t.OID {
	case Numeric:
		m := t.Mod - 4
		return fmt.Sprintf("%s(%d,%d)", n, m>>16, m&0xffff)
	case Varchar, Bpchar:
		return fmt.Sprintf("%s(%d)", n, t.Mod-4)
	}
	return fmt.Sprintf("%s(%d)", n, t.Mod)
}

// typeAliases maps the names SQL writes a type with to its OID.
var typeAliases = map[string]OID{
	"int": Int4, "integer": Int4, "int4": Int4, "smallint": Int2, "int2": Int2,
	"bigint": Int8, "int8": Int8, "real": Float4, "float4": Float4,
	"double precision": Float8, "float8": Float8, "float": Float8,
	"numeric": Numeric, "decimal": Numeric, "text": Text, "varchar": Varchar,
	"character varying": Varchar, "char": Char, "character": Bpchar, "bpchar": Bpchar,
	"bool": Bool, "boolean": Bool, "date": Date, "time": Time,
	"timestamp": Timestamp, "timestamptz": Timestamptz, "interval": Interval,
	"bytea": Bytea, "name": Name, "uuid": UUID, "json": JSON, "jsonb": JSONB, "oid": Oid, "jsonpath": types.JSONPath,
	"inet": types.Inet, "cidr": types.Cidr, "macaddr": types.Macaddr, "macaddr8": types.Macaddr8,
	"money": types.Money, "bit": types.Bit, "varbit": types.Varbit, "bit varying": types.Varbit,
	"int4range": types.Int4range, "int8range": types.Int8range, "numrange": types.Numrange,
	"daterange": types.Daterange, "tsrange": types.Tsrange, "tstzrange": types.Tstzrange,
}

// parseType resolves a type name (pg_catalog qualification dropped) and
// its modifiers (numeric(p,s), varchar(n)).
func parseType(name string, mods []int32) (Type, error) {
	oid, ok := typeAliases[strings.ToLower(name)]
	if !ok {
		return Type{}, errorf(CodeFeatureNotSupported, "the type %s", name)
	}
	t := T(oid)
	switch {
	case oid == Numeric && len(mods) == 1:
		t.Mod = mods[0]<<16 + 4
	case oid == Numeric && len(mods) == 2:
		t.Mod = mods[0]<<16 | mods[1] + 4
	case (oid == Varchar || oid == Bpchar) && len(mods) == 1:
		t.Mod = mods[0] + 4
	case oid == Bpchar && len(mods) == 0 && !strings.EqualFold(name, "bpchar"):
		t.Mod = 5 // char is char(1); bpchar without a length is unbounded (pg_get_viewdef writes 'x'::bpchar)
	case (oid == Timestamp || oid == Timestamptz || oid == Time || oid == types.Timetz || oid == Interval) && len(mods) == 1:
		p, err := secondsPrecision(oid, mods[0])
		if err != nil {
			return Type{}, err
		}
		t.Mod = p
		if oid == Interval {
			t.Mod = IntervalFullRange<<16 | p
		}
	case (oid == types.Bit || oid == types.Varbit) && len(mods) == 1:
		if mods[0] < 1 {
			return Type{}, errorf(CodeInvalidParameter, "length for type %s must be at least 1", typeNames[oid])
		}
		t.Mod = mods[0] // bit(n): the typmod is n
	case len(mods) > 0:
		// A modifier this catalog does not apply (bit(n), …) is refused,
		// never dropped: the value would not be coerced to it.
		return Type{}, errorf(CodeFeatureNotSupported, "a type modifier on %s is not supported by sidecar's SQL engine yet", name)
	}
	return t, nil
}

// secondsPrecision checks timestamp(p)'s, time(p)'s and interval(p)'s
// precision as PostgreSQL does: negative is an error, above 6 is 6
// (PostgreSQL warns).
func secondsPrecision(oid OID, p int32) (int32, error) {
	name := map[OID]string{Timestamp: "TIMESTAMP(%d)", Timestamptz: "TIMESTAMP(%d) WITH TIME ZONE", Time: "TIME(%d)", types.Timetz: "TIME(%d) WITH TIME ZONE", Interval: "INTERVAL(%d)"}[oid]
	if p < 0 {
		return 0, errorf(CodeInvalidParameter, name+" precision must not be negative", p)
	}
	return min(p, 6), nil
}

// numericRank orders the numeric types by PostgreSQL's implicit casts
// (0: not numeric).
func numericRank(o OID) int {
	switch o {
	case Int2:
		return 1
	case Int4:
		return 2
	case Int8:
		return 3
	case Numeric:
		return 4
	case Float4:
		return 5
	case Float8:
		return 6
	}
	return 0
}

// arithResult is the type PostgreSQL's + - * / % give for operands of
// numeric types l and r (0: no such operator), from types/.
func arithResult(op string, l, r OID) OID { return types.ArithResult(op, l, r) }

// aggResult is the result type of aggregate fn over an argument of type
// arg: types.AggResult for count, sum, avg, min and max; the boolean
// aggregates here. version is the followed server's version number (0:
// not known), for the aggregates only some majors have.
func aggResult(fn string, arg OID, version int) (OID, error) {
	switch fn {
	case "array_agg":
		if t := types.ArrayOf(arg); t != 0 {
			return t, nil
		}
		return 0, errorf(CodeFeatureNotSupported, "not supported yet: array_agg(%s)", T(arg))
	case "json_agg", "json_object_agg":
		return JSON, nil // jsonagg.go
	case "jsonb_agg", "jsonb_object_agg":
		return JSONB, nil
	case "bool_and", "bool_or", "every":
		if arg == Bool {
			return Bool, nil
		}
		return 0, errorf(CodeUndefinedFunction, "function %s(%s) does not exist", fn, T(arg))
	}
	if statAggs[fn] {
		a, err := newestFuncs().ResolveAggregate(fn, arg)
		if err != nil {
			if arg == Unknown {
				// bit_and('101'): int2, int4, int8 and bit all take it.
				return 0, errorf("42725", "function %s(unknown) is not unique", fn)
			}
			return 0, errorf(CodeUndefinedFunction, "function %s(%s) does not exist", fn, T(arg))
		}
		return a.Result, nil
	}
	if (fn == "min" || fn == "max") && types.IsUserOID(arg) {
		return arg, nil // min(anyenum), max(anyenum): an enum column (enum.go); sql/exec reads no other user type
	}
	t, err := types.AggResult(fn, arg)
	if err != nil {
		if (fn == "min" || fn == "max") && minMaxElsewhere(arg, version) {
			return 0, errorf(CodeFeatureNotSupported, "not supported yet: %s(%s)", fn, T(arg))
		}
		return 0, errorf(CodeUndefinedFunction, "function %s(%s) does not exist", fn, T(arg))
	}
	return t, nil
}

// minMaxArg is the argument min/max compare: a "char" reaches
// max(text) through its implicit cast, so its values compare as text
// under the default collation, not as "char"'s bytes (varchar and name
// already compare as text does).
func minMaxArg(fn string, arg Scalar) Scalar {
	if (fn == "min" || fn == "max") && arg.Type().OID == Char {
		return &Cast{Arg: arg, T: T(Text)}
	}
	return arg
}

// minMaxElsewhere says whether the followed major (version; 0 when not
// known: any major) has min and max over arg though types.AggResult does
// not compute them: arrays, pg_lsn and tid on every major sidecar
// follows; bytea, xid8 and record from PostgreSQL 18 (pg_aggregate of
// 14 and 18 compared). Calling such a "function does not exist" (42883)
// would be a different answer: it is refused.
func minMaxElsewhere(arg OID, version int) bool {
	if types.IsArray(arg) {
		return true
	}
	switch types.NameOf(arg) {
	case "pg_lsn", "tid":
		return true
	case "bytea", "xid8", "record":
		return version == 0 || version >= 180000
	}
	return false
}

// unknownAggArg is the type an untyped literal argument of aggregate fn
// takes: the overload PostgreSQL's resolution picks for the library's
// statistics aggregates (float8, the numeric category's preferred
// type), text for the others.
func unknownAggArg(fn string) Type {
	if _, stat := statAggs[fn]; stat {
		if a, err := newestFuncs().ResolveAggregate(fn, Unknown); err == nil {
			return T(a.Arg)
		}
		return T(Unknown) // not unique: aggResult says so
	}
	return T(Text)
}

// statAggs are the variance and standard deviation aggregates and
// bit_and/bit_or/bit_xor, which the function library types and
// computes (sql/builtin).
var statAggs = map[string]bool{"stddev": true, "stddev_samp": true, "stddev_pop": true,
	"variance": true, "var_samp": true, "var_pop": true,
	"bit_and": true, "bit_or": true, "bit_xor": true}

// isString says whether o is in the string category.
func isString(o OID) bool {
	return o == Text || o == Varchar || o == Bpchar || o == Name || o == Unknown
}

// commonType is the type PostgreSQL's select_common_type picks for the
// branches of a UNION, CASE or COALESCE: the first known type, replaced
// by a later one of the same category when it is not preferred and
// converts implicitly to the later one but not back; unknown gives way,
// all unknown is text. The typmod stays when every branch has the same.
func commonType(ts []Type) (Type, error) {
	out, found := T(Unknown), false
	for _, t := range ts {
		if t.OID == Unknown {
			continue
		}
		if !found {
			out, found = t, true
			continue
		}
		if t.OID == out.OID {
			if t.Mod != out.Mod {
				out.Mod = -1
			}
			continue
		}
		pt, ok1 := types.Lookup(out.OID)
		nt, ok2 := types.Lookup(t.OID)
		if !ok1 || !ok2 || pt.Category != nt.Category {
			return Type{}, errorf(CodeDatatypeMismatch, "types %s and %s cannot be matched", out, t)
		}
		if !pt.Preferred && types.CastContext(out.OID, t.OID) == types.CastImplicit && types.CastContext(t.OID, out.OID) != types.CastImplicit {
			out = t
		}
	}
	if !found {
		return T(Text), nil
	}
	// A typmod survives only if every branch has it.
	for _, t := range ts {
		if t.OID != out.OID || t.Mod != out.Mod {
			out.Mod = -1
			break
		}
	}
	return out, nil
}
