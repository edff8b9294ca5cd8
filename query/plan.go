package query

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/types"
)

// ErrBadRequest is wrapped by every error Bind returns: the request names
// a column, type, function or literal the table cannot answer (exit 2).
var ErrBadRequest = errors.New("bad query")

// Request is one aggregate query, as `sidecar agg` flags and POST
// /api/query's JSON body give it.
type Request struct {
	Table   string   `json:"table"`
	Aggs    []Agg    `json:"aggs"`
	GroupBy []string `json:"group_by,omitempty"`
	Where   *Expr    `json:"where,omitempty"`
	// Having refers to output columns by name: "count(*)", "sum(score)",
	// or a GROUP BY column.
	Having  *Expr   `json:"having,omitempty"`
	OrderBy []Order `json:"order_by,omitempty"`
	Limit   int     `json:"limit,omitempty"` // 0: no limit
	AsOf    string  `json:"as_of,omitempty"` // a version reference; "" is HEAD
}

// Agg is one aggregate: Func is count, sum, min, max or avg; Col is ""
// only for count(*).
type Agg struct {
	Func string `json:"func"`
	Col  string `json:"col,omitempty"`
}

// Name is the aggregate's output column name, "count(*)" or "sum(score)".
func (a Agg) Name() string {
	if a.Col == "" {
		return a.Func + "(*)"
	}
	return a.Func + "(" + a.Col + ")"
}

// Order is one ORDER BY key: an output column name.
type Order struct {
	Key  string `json:"key"`
	Desc bool   `json:"desc,omitempty"`
}

// Expr is a boolean expression. Op is "and", "or", "not" (over Args), or a
// predicate on Col: "=", "<>", "<", "<=", ">", ">=" (one value),
// "between" (two), "in" (one or more), "like" (one pattern: a literal
// prefix, optionally ending in %), "is_null", "is_not_null" (none).
// Values are literal texts as PostgreSQL would read them for the column's
// type (NULL literals are not accepted).
type Expr struct {
	Op     string   `json:"op"`
	Args   []*Expr  `json:"args,omitempty"`
	Col    string   `json:"col,omitempty"`
	Values []string `json:"values,omitempty"`
}

// String prints the expression in SQL syntax (for messages).
func (e *Expr) String() string {
	if e == nil {
		return "TRUE"
	}
	switch e.Op {
	case "and", "or":
		parts := make([]string, len(e.Args))
		for i, a := range e.Args {
			parts[i] = a.String()
		}
		return "(" + strings.Join(parts, " "+strings.ToUpper(e.Op)+" ") + ")"
	case "not":
		if len(e.Args) == 1 {
			return "NOT " + e.Args[0].String()
		}
	case "is_null":
		return e.Col + " IS NULL"
	case "is_not_null":
		return e.Col + " IS NOT NULL"
	case "between":
		if len(e.Values) == 2 {
			return e.Col + " BETWEEN " + quote(e.Values[0]) + " AND " + quote(e.Values[1])
		}
	case "in":
		q := make([]string, len(e.Values))
		for i, v := range e.Values {
			q[i] = quote(v)
		}
		return e.Col + " IN (" + strings.Join(q, ", ") + ")"
	}
	if len(e.Values) == 1 {
		return e.Col + " " + strings.ToUpper(e.Op) + " " + quote(e.Values[0])
	}
	return fmt.Sprintf("%s(%s %v)", e.Op, e.Col, e.Values)
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// vkind is how a bound value is held.
type vkind uint8

const (
	vInt     vkind = iota + 1 // int64 (integer kinds, bool as 0/1)
	vFloat                    // float64 (real is held as float64 too)
	vText                     // string
	vNumeric                  // exact decimal: Num / 10^Scale
)

// Value is one typed result cell (or bound literal).
type Value struct {
	Null  bool
	K     vkind
	I     int64
	F     float64
	S     string
	Num   *big.Int // vNumeric: unscaled
	Scale int32    // vNumeric: display scale
}

// Plan is a Request bound to a schema: column indexes, kinds, literals.
type Plan struct {
	Req     Request
	schema  heap.Schema
	aggs    []boundAgg
	groups  []int // column indexes
	where   *node
	having  *node // over output columns (cols index into Columns)
	order   []boundOrder
	Columns []ResultColumn // group columns, then aggregates
	needed  []int          // every column the scan reads
	// outOIDs, when set, are the types of the group columns' outputs
	// compared by value (typedtext.go; 0: as their kind).
	outOIDs []uint32
}

// ResultColumn names one output column and its PostgreSQL type.
type ResultColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type boundAgg struct {
	fn   string
	col  int // -1 for count(*)
	kind heap.Kind
}

type boundOrder struct {
	col  int // index into Columns
	desc bool
}

// node is a bound expression.
type node struct {
	op   string
	args []*node
	col  int       // column index (where) or output index (having)
	kind heap.Kind // the column's kind (where); for having the output's
	vals []Value
	nums []numv // the numeric literals of vals
	vk   vkind
	in   *inSet // a long IN list's lookup (filter.go), nil otherwise
	// typed: the literals of a leaf over a text-stored column compared
	// by value (typedtext.go), nil otherwise.
	typed *typedLits
}

var supported = map[heap.Kind]bool{
	heap.KindInt2: true, heap.KindInt4: true, heap.KindInt8: true,
	heap.KindFloat4: true, heap.KindFloat8: true, heap.KindText: true, heap.KindBool: true,
	heap.KindNumeric: true, heap.KindDate: true, heap.KindTimestamp: true, heap.KindTimestampTZ: true,
}

func kindVK(k heap.Kind) vkind {
	switch {
	case k.IsFloat():
		return vFloat
	case k == heap.KindText:
		return vText
	case k == heap.KindNumeric:
		return vNumeric
	}
	return vInt
}

// typeName is the SQL name of the type a column of kind k is taken as
// (the type catalog's).
func typeName(k heap.Kind) string {
	return types.NameOf(types.PhysicalType(types.Physical(k)))
}

// typeKind is the kind of a type name typeName gives (text for the rest).
func typeKind(typ string) heap.Kind {
	t, _, err := types.Parse(typ)
	if err != nil {
		return heap.KindText
	}
	return heap.Kind(t.Physical)
}

func badf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadRequest, fmt.Sprintf(format, args...))
}

// Bind checks req against schema and returns the plan. Every error wraps
// ErrBadRequest and names what is wrong.
func Bind(req Request, schema heap.Schema) (*Plan, error) {
	p := &Plan{Req: req, schema: schema}
	col := func(name, what string) (int, error) {
		for i, c := range schema.Columns {
			if c.Name == name {
				if !supported[c.Kind] {
					return 0, badf("%s: column %q is %s, which query does not support yet", what, name, c.Kind)
				}
				return i, nil
			}
		}
		return 0, badf("%s: table %q has no column %q", what, req.Table, name)
	}
	if len(req.Aggs) == 0 && len(req.GroupBy) == 0 {
		return nil, badf("no aggregate and no group by: nothing to compute")
	}
	need := map[int]bool{}
	for _, g := range req.GroupBy {
		c, err := col(g, "group by")
		if err != nil {
			return nil, err
		}
		for _, o := range p.groups {
			if o == c {
				return nil, badf("group by: column %q named twice", g)
			}
		}
		p.groups = append(p.groups, c)
		need[c] = true
		p.Columns = append(p.Columns, ResultColumn{Name: g, Type: typeName(schema.Columns[c].Kind)})
	}
	for _, a := range req.Aggs {
		b := boundAgg{fn: a.Func, col: -1}
		if a.Col == "" {
			if a.Func != "count" {
				return nil, badf("%s(*): only count takes *", a.Func)
			}
			p.aggs = append(p.aggs, b)
			p.Columns = append(p.Columns, ResultColumn{Name: a.Name(), Type: "bigint"})
			continue
		}
		c, err := col(a.Col, a.Name())
		if err != nil {
			return nil, err
		}
		b.col, b.kind = c, schema.Columns[c].Kind
		typ, err := aggType(a.Func, b.kind)
		if err != nil {
			return nil, badf("%s: %v", a.Name(), err)
		}
		need[c] = true
		p.aggs = append(p.aggs, b)
		p.Columns = append(p.Columns, ResultColumn{Name: a.Name(), Type: typ})
	}
	for i := range p.Columns {
		for j := 0; j < i; j++ {
			if p.Columns[i].Name == p.Columns[j].Name {
				return nil, badf("output column %q named twice", p.Columns[i].Name)
			}
		}
	}
	if req.Where != nil {
		n, err := bindExpr(req.Where, func(name string) (int, heap.Kind, error) {
			c, err := col(name, "where")
			if err != nil {
				return 0, 0, err
			}
			need[c] = true
			return c, schema.Columns[c].Kind, nil
		})
		if err != nil {
			return nil, err
		}
		p.where = n
	}
	out := func(name string) (int, error) {
		for i, c := range p.Columns {
			if c.Name == name {
				return i, nil
			}
		}
		return 0, badf("no output column %q (have %s)", name, p.columnNames())
	}
	if req.Having != nil {
		n, err := bindExpr(req.Having, func(name string) (int, heap.Kind, error) {
			i, err := out(name)
			if err != nil {
				return 0, 0, fmt.Errorf("having: %w", err)
			}
			return i, outKind(p.Columns[i].Type), nil
		})
		if err != nil {
			return nil, err
		}
		p.having = n
	}
	for _, o := range req.OrderBy {
		i, err := out(o.Key)
		if err != nil {
			return nil, fmt.Errorf("order by: %w", err)
		}
		p.order = append(p.order, boundOrder{col: i, desc: o.Desc})
	}
	if req.Limit < 0 {
		return nil, badf("limit %d: must not be negative", req.Limit)
	}
	for c := range schema.Columns {
		if need[c] {
			p.needed = append(p.needed, c)
		}
	}
	return p, nil
}

func (p *Plan) columnNames() string {
	n := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		n[i] = c.Name
	}
	return strings.Join(n, ", ")
}

// outKind maps an output type back to the kind its literals parse as.
func outKind(typ string) heap.Kind {
	switch typ {
	case "smallint", "integer", "bigint":
		return heap.KindInt8
	}
	return typeKind(typ)
}

// aggType is PostgreSQL's result type of fn over a column of kind k:
// the type catalog's aggregate result types.
func aggType(fn string, k heap.Kind) (string, error) {
	switch fn {
	case "count", "sum", "avg", "min", "max":
	default:
		return "", fmt.Errorf("unknown aggregate %q (want count, sum, min, max, avg)", fn)
	}
	oid, err := types.AggResult(fn, types.PhysicalType(types.Physical(k)))
	if err != nil {
		return "", errors.New(err.Error())
	}
	return types.NameOf(oid), nil
}

func bindExpr(e *Expr, col func(string) (int, heap.Kind, error)) (*node, error) {
	switch e.Op {
	case "and", "or", "not":
		if e.Op == "not" && len(e.Args) != 1 || len(e.Args) == 0 {
			return nil, badf("%s: wrong number of operands (%d)", e.Op, len(e.Args))
		}
		n := &node{op: e.Op}
		for _, a := range e.Args {
			if a == nil {
				return nil, badf("%s: empty operand", e.Op)
			}
			b, err := bindExpr(a, col)
			if err != nil {
				return nil, err
			}
			n.args = append(n.args, b)
		}
		return n, nil
	}
	want := map[string]int{"=": 1, "<>": 1, "<": 1, "<=": 1, ">": 1, ">=": 1, "between": 2, "like": 1, "is_null": 0, "is_not_null": 0, "in": -1}
	nv, ok := want[e.Op]
	if !ok {
		return nil, badf("unknown operator %q", e.Op)
	}
	if nv >= 0 && len(e.Values) != nv || nv < 0 && len(e.Values) == 0 {
		return nil, badf("%s: operator %s takes %d values, got %d", e.String(), e.Op, max(nv, 1), len(e.Values))
	}
	c, k, err := col(e.Col)
	if err != nil {
		return nil, err
	}
	n := &node{op: e.Op, col: c, kind: k, vk: kindVK(k)}
	if e.Op == "like" {
		if k != heap.KindText {
			return nil, badf("%s: LIKE needs a text column, %q is %s", e.String(), e.Col, typeName(k))
		}
		pat := e.Values[0]
		body, prefix := strings.CutSuffix(pat, "%")
		if strings.ContainsAny(body, "%_\\") {
			return nil, badf("%s: only a literal prefix LIKE 'abc%%' is supported", e.String())
		}
		if !prefix {
			n.op = "="
		}
		n.vals = []Value{{K: vText, S: body}}
		return n, nil
	}
	for _, s := range e.Values {
		v, err := parseLiteral(k, s)
		if err != nil {
			return nil, badf("%s: %v", e.String(), err)
		}
		n.vals = append(n.vals, v)
		if k == heap.KindNumeric {
			n.nums = append(n.nums, valueNumv(v))
		}
	}
	n.in = newInSet(n)
	return n, nil
}

// parseLiteral reads s as a literal for a column of kind k.
func parseLiteral(k heap.Kind, s string) (Value, error) {
	t := strings.TrimSpace(s)
	switch {
	case k == heap.KindText:
		return Value{K: vText, S: s}, nil
	case k == heap.KindBool:
		switch strings.ToLower(t) {
		case "t", "true", "y", "yes", "on", "1":
			return Value{K: vInt, I: 1}, nil
		case "f", "false", "n", "no", "off", "0":
			return Value{K: vInt, I: 0}, nil
		}
		return Value{}, fmt.Errorf("invalid input syntax for type boolean: %q", s)
	case k.IsFloat():
		switch strings.ToLower(t) {
		case "nan":
			return Value{K: vFloat, F: math.NaN()}, nil
		case "infinity", "inf", "+infinity", "+inf":
			return Value{K: vFloat, F: math.Inf(1)}, nil
		case "-infinity", "-inf":
			return Value{K: vFloat, F: math.Inf(-1)}, nil
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || strings.ContainsAny(t, "xXpP_") {
			return Value{}, fmt.Errorf("invalid number %q", s)
		}
		return Value{K: vFloat, F: f}, nil
	case k == heap.KindNumeric:
		switch strings.ToLower(t) {
		case "nan":
			return Value{K: vNumeric, S: "NaN"}, nil
		case "infinity", "inf", "+infinity", "+inf":
			return Value{K: vNumeric, S: "Infinity"}, nil
		case "-infinity", "-inf":
			return Value{K: vNumeric, S: "-Infinity"}, nil
		}
		r, ok := new(big.Rat).SetString(t)
		if !ok || strings.ContainsAny(t, "/xXpP_") {
			return Value{}, fmt.Errorf("invalid number %q", s)
		}
		return ratValue(r), nil
	case k == heap.KindDate, k == heap.KindTimestamp, k == heap.KindTimestampTZ:
		if low := strings.ToLower(t); low == "infinity" || low == "-infinity" {
			t = low
		} else if k == heap.KindTimestampTZ && !hasOffset(t) {
			t += "+00" // no offset: the session's TimeZone, UTC
		}
		if k == heap.KindTimestamp && len(t) == 10 || k == heap.KindTimestampTZ && len(t) == 13 {
			t = t[:10] + " 00:00:00" + t[10:] // a date alone is its midnight
		}
		i, _, err := heap.ParseText(k, []byte(t))
		if err != nil {
			return Value{}, fmt.Errorf("invalid input syntax for type %s: %q (want ISO, as PostgreSQL prints it)", typeName(k), s)
		}
		return Value{K: vInt, I: i}, nil
	}
	i, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return Value{}, fmt.Errorf("%q is not an integer in range for %s", s, typeName(k))
	}
	return Value{K: vInt, I: i}, nil
}

// hasOffset reports whether a timestamp text ends in a UTC offset
// (+HH, -HH:MM, …) after its time.
func hasOffset(t string) bool {
	i := strings.LastIndexAny(t, "+-")
	return i > 10
}

// ratValue holds an exact decimal literal as a numeric value.
func ratValue(r *big.Rat) Value {
	// A decimal literal's denominator is a power of ten times a factor of it.
	scale := int32(0)
	num := new(big.Int).Set(r.Num())
	den := r.Denom()
	ten := big.NewInt(10)
	for new(big.Int).Mod(num, den).Sign() != 0 && scale < 1000 {
		num.Mul(num, ten)
		scale++
	}
	num.Quo(num, den)
	return Value{K: vNumeric, Num: num, Scale: scale}
}
