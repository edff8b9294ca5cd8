package sqlfront

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sidecar-dev/sidecar/types"
)

// Result values under extra_float_digits < 1 and bytea_output = escape
// on sql/exec (vexec.go). sql/exec prints PostgreSQL's defaults
// (types.Out); the result columns of type float8, float4 and bytea are
// printed again here under the session's setting. A value converted to
// text inside the statement (a cast to text, ||, concat, format, to_json,
// an array or a row) would have printed under the setting too, so such
// statements stay refused: outputOnly says whether the statement has
// none of those — every function it calls is one of outputSafeFuncs and
// every cast is to a type that does not print its argument.

// outputSafeFuncs are functions that never print a float or bytea
// argument as text.
var outputSafeFuncs = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`abs sqrt cbrt exp ln log log10 power pow round trunc ceil ceiling floor sign
		sin cos tan cot asin acos atan atan2 sind cosd tand cotd asind acosd atand atan2d sinh cosh tanh asinh acosh atanh
		degrees radians pi mod div width_bucket random float8 float4 int2 int4 int8
		count sum avg min max stddev stddev_samp stddev_pop variance var_samp var_pop bool_and bool_or every
		corr covar_pop covar_samp regr_avgx regr_avgy regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy
		percentile_cont percentile_disc mode row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
		generate_series greatest least nullif coalesce
		extract date_part date_trunc date_bin age justify_interval justify_days justify_hours make_interval make_date make_time
		make_timestamp make_timestamptz isfinite now clock_timestamp statement_timestamp transaction_timestamp timezone
		length octet_length bit_length md5 sha224 sha256 sha384 sha512 substring substr btrim ltrim rtrim overlay position strpos
		encode decode get_bit set_bit get_byte set_byte bit_count byteacat like_escape`) {
		outputSafeFuncs[n] = true
	}
}

// outputSafeCasts are the cast targets that do not print their argument.
var outputSafeCasts = map[string]bool{"float8": true, "float4": true, "int2": true, "int4": true, "int8": true, "numeric": true,
	"bool": true, "bytea": true, "date": true, "timestamp": true, "timestamptz": true, "interval": true, "time": true}

// outputOnly says whether stmt converts no value to text inside itself.
func outputOnly(stmt *pg.Node) bool {
	ok := true
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if !ok {
			return
		}
		switch n := m.Interface().(type) {
		case *pg.TypeCast:
			names := n.GetTypeName().GetNames()
			if len(names) == 0 || len(n.GetTypeName().GetArrayBounds()) > 0 || !outputSafeCasts[strings.ToLower(names[len(names)-1].GetString_().GetSval())] {
				ok = false
				return
			}
		case *pg.FuncCall:
			names := n.GetFuncname()
			if len(names) == 0 || !outputSafeFuncs[strings.ToLower(names[len(names)-1].GetString_().GetSval())] {
				ok = false
				return
			}
		case *pg.A_Expr:
			for _, nm := range n.GetName() {
				if nm.GetString_().GetSval() == "||" {
					ok = false
					return
				}
			}
		case *pg.RowExpr, *pg.A_ArrayExpr, *pg.ArrayExpr, *pg.SubLink:
			if sl, isSub := n.(*pg.SubLink); !isSub || sl.GetSubLinkType() == pg.SubLinkType_ARRAY_SUBLINK {
				ok = false
				return
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList():
				l := v.List()
				for i := 0; i < l.Len() && ok; i++ {
					if fd.Message() != nil {
						walk(l.Get(i).Message())
					}
				}
			case fd.Message() != nil && !fd.IsMap():
				walk(v.Message())
			}
			return ok
		})
	}
	walk(stmt.ProtoReflect())
	return ok
}

// extraFloatDigits is the session's extra_float_digits (ok=false when
// it does not read as PostgreSQL's range, -15 … 3).
func extraFloatDigits(s *session) (n int, ok bool) {
	v, set := s.settings["extra_float_digits"]
	if !set {
		return 1, true
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	return n, err == nil && n >= -15 && n <= 3
}

// outputSetting is the cell for a result value of type t printed under
// the session's extra_float_digits (efd < 1), bytea_output = escape or
// an IntervalStyle other than postgres (ivStyle); ok=false for any other
// value (types.Out's text stands).
func outputSetting(t uint32, v types.Value, efd int, escape bool, ivStyle string) (Value, bool) {
	switch x := v.(type) {
	case types.IntervalVal:
		if ivStyle == "" || t != oidInterval {
			return nil, false
		}
		return engineCell{v: x, txt: string(types.AppendIntervalStyle(nil, x, ivStyle)), base: types.Out(oidInterval, x)}, true
	case float64:
		if efd >= 1 || t != oidFloat8 && t != oidFloat4 {
			return nil, false
		}
		bits := 64
		if t == oidFloat4 {
			bits = 32
		}
		return engineCell{v: x, txt: types.FormatFloatDigits(x, bits, efd)}, true
	case []byte:
		if !escape || t != oidBytea {
			return nil, false
		}
		return engineCell{v: x, txt: types.ByteaEscape(x)}, true
	}
	return nil, false
}

// viewsOutputOnly says whether the definitions of the views a statement
// expanded convert no value to text either: a view's `f8::text` column
// printed under extra_float_digits = 0 by the statement that reads it
// (before, `SELECT t FROM v` answered 349.09666666666664 where
// PostgreSQL prints 349.096666666667: only the statement's own text was
// checked).
func viewsOutputOnly(views []usedView) bool {
	for _, u := range views {
		if u.facts == nil {
			return false
		}
		text := u.facts.Qualified
		if text == "" {
			text = u.facts.Def
		}
		tree, err := parseSQL(text)
		if err != nil {
			return false
		}
		for _, st := range tree.Stmts {
			if !outputOnly(st.Stmt) {
				return false
			}
		}
	}
	return true
}

// plainResults says whether every result column prints a scalar of a
// built-in type: a row (a whole-row reference, ROW(...)), an array or a
// user-defined type prints its fields inside itself, through record_out
// and array_out, under the session's settings, which outputSetting does
// not reach (before, `SELECT i FROM (SELECT id, f) i` printed the float
// field in the shortest form under extra_float_digits = 0, and a bytea
// field as hex under bytea_output = escape).
func (v *vecPlan) plainResults() bool {
	for _, t := range v.oids {
		if t == types.RecordOID || t >= firstNormalOID || types.IsArray(t) {
			return false
		}
	}
	return true
}
