package types

import (
	"math/big"
	"strings"
)

// Dialect is the PostgreSQL major whose behaviour the catalog reproduces
// where majors differ (the followed server's server_version_num; 0 means
// the newest). The package-level functions are Dialect{}'s.
//
// What differs among 14–18, as the differential tests found:
//   - 16+: integer and numeric input take 0x/0o/0b prefixes and
//     underscores between digits ('0x10'::int2, '1_000'::int4);
//   - 15+: "char" is category Z, prints a high-bit byte as \ooo and reads
//     \ooo; numeric(p,s) takes a negative scale or one above p;
//   - 18+: bytea ↔ int2/int4/int8 casts, min/max(bytea).
type Dialect struct {
	Version int
	// IntervalSQLStandard: the session's IntervalStyle is sql_standard,
	// under which PostgreSQL's interval input applies a leading '-' to
	// every field without its own sign ('-1 1:00:00' is -1 day -1 hour,
	// not -1 day +1 hour): such input is refused (intervalSQLStandardRefusal).
	IntervalSQLStandard bool
}

func (d Dialect) atLeast(v int) bool { return d.Version == 0 || d.Version >= v }

// In is the input function of oid in this dialect (see the package In).
func (d Dialect) In(oid OID, mod int32, s string) (Value, error) {
	if err := d.checkMod(oid, mod); err != nil {
		return nil, err
	}
	if !d.atLeast(160000) {
		switch oid {
		case Int2, Int4, Int8, Numeric:
			if strings.ContainsAny(s, "_xXoObB") && !strings.EqualFold(strings.TrimSpace(s), "nan") {
				return nil, syntaxErr(oid, s)
			}
		}
	}
	if oid == JSONPath {
		return d.parseJSONPathValue(s) // jsonpath.go: 17's item methods
	}
	if oid == Interval && d.IntervalSQLStandard {
		if err := intervalSQLStandardRefusal(s); err != nil {
			return nil, err
		}
	}
	if oid == Interval && d.Version >= 170000 { // not 0 (unknown): the finite values of 14–16

		if err := intervalInfinity17Refusal(s); err != nil { // interval17.go
			return nil, err
		}
	}
	if oid == Interval && !d.atLeast(150000) {
		if err := interval14Refusal(s); err != nil { // interval14.go
			return nil, err
		}
	}
	if oid == Char && !d.atLeast(150000) {
		if s == "" {
			return "", nil
		}
		return s[:1], nil
	}
	return In(oid, mod, s)
}

// checkMod refuses typmods this dialect's typmodin rejects.
func (d Dialect) checkMod(oid OID, mod int32) error {
	if oid != Numeric || d.atLeast(150000) {
		return nil
	}
	if p, s, ok := NumericMod(mod); ok && (s < 0 || s > p) {
		return errorf(CodeInvalidParam, "NUMERIC scale %d must be between 0 and precision %d", s, p)
	}
	return nil
}

// Out is the output function of oid in this dialect.
func (d Dialect) Out(oid OID, v Value) string {
	if oid == Char && !d.atLeast(150000) {
		if s := v.(string); s != "" && s[0] != 0 {
			return s[:1]
		}
		return ""
	}
	return Out(oid, v)
}

// Category is pg_type.typcategory of oid in this dialect.
func (d Dialect) Category(t *Type) Category {
	if t.OID == Char && !d.atLeast(150000) {
		return CatString
	}
	return t.Category
}

// CastContext is pg_cast's context for from → to in this dialect.
func (d Dialect) CastContext(from, to OID) CastKind {
	if from == Bytea && isInt(to) || isInt(from) && to == Bytea {
		if d.atLeast(180000) {
			return CastExplicit
		}
		return CastNone
	}
	return castContext(from, to, func(o OID) bool {
		t, ok := byOID[o]
		return ok && d.Category(t) == CatString
	})
}

func isInt(o OID) bool { return o == Int2 || o == Int4 || o == Int8 }

// AggResult is the aggregate's result type in this dialect.
func (d Dialect) AggResult(fn string, arg OID) (OID, error) {
	if (fn == "min" || fn == "max") && arg == Bytea && d.atLeast(180000) {
		return Bytea, nil
	}
	return AggResult(fn, arg)
}

// nonDecimal reads PostgreSQL 16's integer literal forms: 0x, 0o, 0b
// prefixes and single underscores between digits. It returns the
// decimal digits (with the sign) and ok; ok is false for text that is
// not such a literal (the caller's syntax error).
func nonDecimal(t string) (string, bool) {
	sign := ""
	if t != "" && (t[0] == '+' || t[0] == '-') {
		if t[0] == '-' {
			sign = "-"
		}
		t = t[1:]
	}
	base := 10
	if len(t) > 2 && t[0] == '0' {
		switch t[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 10 {
			t = t[2:]
		}
	}
	if t == "" || t[0] == '_' || t[len(t)-1] == '_' || strings.Contains(t, "__") {
		return "", false
	}
	if base == 10 {
		if strings.Trim(t, "0123456789_") != "" {
			return "", false
		}
		return sign + strings.ReplaceAll(t, "_", ""), true
	}
	v, ok := new(big.Int).SetString(strings.ReplaceAll(t, "_", ""), base)
	if !ok {
		return "", false
	}
	return sign + v.String(), true
}

// Convert is the cast in this dialect (see the package Convert).
func (d Dialect) Convert(v Value, from, to OID, mod int32) (Value, error) {
	if v != nil && from == Char && isString(to) && !d.atLeast(150000) {
		return Convert(d.Out(Char, v), Text, to, mod)
	}
	if d.CastContext(from, to) == CastNone && CastContext(from, to) != CastNone {
		return nil, errorf(CodeCannotCoerce, "cannot cast type %s to %s", NameOf(from), NameOf(to))
	}
	return Convert(v, from, to, mod)
}

// Parse reads a type name in this dialect (see the package Parse).
func (d Dialect) Parse(name string) (*Type, int32, error) {
	t, mod, err := Parse(name)
	if err == nil {
		err = d.checkMod(t.OID, mod)
	}
	if err != nil {
		return nil, -1, err
	}
	return t, mod, nil
}
