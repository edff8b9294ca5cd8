package query

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/types"
)

var seedFlag = seed.Flag()

var modelSchema = heap.Schema{Columns: []heap.Column{
	{Name: "id", Kind: heap.KindInt8}, {Name: "a", Kind: heap.KindInt4}, {Name: "b", Kind: heap.KindInt8},
	{Name: "c", Kind: heap.KindInt2}, {Name: "f", Kind: heap.KindFloat8}, {Name: "g", Kind: heap.KindFloat4},
	{Name: "t", Kind: heap.KindText}, {Name: "bl", Kind: heap.KindBool},
	{Name: "n", Kind: heap.KindNumeric}, {Name: "d", Kind: heap.KindDate},
	{Name: "ts", Kind: heap.KindTimestamp}, {Name: "tz", Kind: heap.KindTimestampTZ},
}}

// numericEdges: specials, many digits (exceptions in the heap), scales
// that differ, values near the int64 bound once rescaled.
var numericEdges = []string{"NaN", "Infinity", "-Infinity", "0", "0.00", "-0.5", "1.5", "1.50",
	"123456789012345678901234567890.123456789", "-99999999999999999999.99", "9223372036854775807", "0.000000000000000000001",
	"922337203685477580.7", "-922337203685477580.8"}

var dateEdges = []int64{math.MaxInt32, math.MinInt32, 0, -1, -730119 /* 0001-01-01 */, -730120 /* 0001-12-31 BC */}
var tsEdges = []int64{math.MaxInt64, math.MinInt64, 0, -1, 86400e6 - 1, 1}

var floatEdges = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 1.5, -2.25, 1e300, -1e-300}
var textEdges = []string{"", "a", "ab", "abc", "abd", "b", "é", "zz", "ab\x00"}

func randCell(r *rand.Rand, c int) []byte {
	if c > 0 && r.IntN(8) == 0 {
		return nil
	}
	switch modelSchema.Columns[c].Name {
	case "a":
		return strconv.AppendInt(nil, r.Int64N(11)-5, 10)
	case "b":
		switch r.IntN(10) {
		case 0:
			return strconv.AppendInt(nil, math.MaxInt64, 10)
		case 1:
			return strconv.AppendInt(nil, math.MinInt64, 10)
		}
		return strconv.AppendInt(nil, r.Int64()-r.Int64(), 10)
	case "c":
		return strconv.AppendInt(nil, r.Int64N(1<<16)-1<<15, 10)
	case "f":
		if r.IntN(3) == 0 {
			return []byte(formatFloat(floatEdges[r.IntN(len(floatEdges))], 64))
		}
		return []byte(formatFloat(float64(r.IntN(21)-10)/4, 64))
	case "g":
		if r.IntN(4) == 0 {
			return []byte(formatFloat(float64(float32(floatEdges[r.IntN(len(floatEdges)-2)])), 32))
		}
		return []byte(formatFloat(float64(float32(r.NormFloat64()*100)), 32))
	case "t":
		return []byte(textEdges[r.IntN(len(textEdges))])
	case "bl":
		return []byte([]string{"t", "f"}[r.IntN(2)])
	case "n":
		if r.IntN(4) == 0 {
			return []byte(numericEdges[r.IntN(len(numericEdges))])
		}
		sc := r.IntN(4)
		return []byte(formatNumeric(big.NewInt(r.Int64N(2001)-1000), int32(sc)))
	case "d":
		if r.IntN(5) == 0 {
			return heap.AppendText(nil, heap.KindDate, dateEdges[r.IntN(len(dateEdges))], 0, 0)
		}
		return heap.AppendText(nil, heap.KindDate, r.Int64N(40)-20, 0, 0)
	case "ts", "tz":
		k := heap.KindTimestamp
		if modelSchema.Columns[c].Name == "tz" {
			k = heap.KindTimestampTZ
		}
		if r.IntN(5) == 0 {
			return heap.AppendText(nil, k, tsEdges[r.IntN(len(tsEdges))], 0, 0)
		}
		return heap.AppendText(nil, k, (r.Int64N(40)-20)*3_600_000_000+r.Int64N(3)*1500, 0, 0)
	}
	return nil
}

// buildHeap applies random inserts, updates and deletes in several batches.
func buildHeap(t *testing.T, r *rand.Rand) *heap.Heap {
	h, err := heap.New(modelSchema, heap.Config{PageRows: 8 << r.IntN(5)})
	if err != nil {
		t.Fatal(err)
	}
	var ids []heap.RowID
	n := r.IntN(2000)
	next := int64(0)
	for lsn := uint64(1); lsn < 6; lsn++ {
		var ops []heap.Op
		for range n / 5 {
			switch k := r.IntN(10); {
			case k < 7 || len(ids) == 0:
				ops = append(ops, heap.Op{Kind: heap.OpInsert, Row: randRow(r, next)})
				next++
			case k < 9:
				i := r.IntN(len(ids))
				ops = append(ops, heap.Op{Kind: heap.OpUpdate, ID: ids[i], Row: randRow(r, next)})
				next++
				ids = slices.Delete(ids, i, i+1)
			default:
				i := r.IntN(len(ids))
				ops = append(ops, heap.Op{Kind: heap.OpDelete, ID: ids[i]})
				ids = slices.Delete(ids, i, i+1)
			}
		}
		got, err := h.Apply(heap.Batch{LSN: lsn, Ops: ops})
		if err != nil {
			t.Fatal(err)
		}
		for i, op := range ops {
			if op.Kind != heap.OpDelete {
				ids = append(ids, got[i])
			}
		}
	}
	return h
}

func randRow(r *rand.Rand, id int64) []byte {
	vals := make([][]byte, len(modelSchema.Columns))
	vals[0] = strconv.AppendInt(nil, id, 10)
	for c := 1; c < len(vals); c++ {
		vals[c] = randCell(r, c)
	}
	return rowenc.Append(nil, vals)
}

// --- the reference: row at a time over the vrow1 texts ---

type refRow []*string

func refRows(t *testing.T, s *heap.Snapshot) []refRow {
	var rows []refRow
	s.ForEach(func(_ heap.RowID, row []byte) bool {
		it := rowenc.NewIter(row)
		var rr refRow
		for it.Next() {
			if it.Null() {
				rr = append(rr, nil)
				continue
			}
			v := string(it.Value())
			rr = append(rr, &v)
		}
		if it.Err() != nil {
			t.Fatal(it.Err())
		}
		rows = append(rows, rr)
		return true
	})
	return rows
}

func refValue(k heap.Kind, s *string) Value {
	if s == nil {
		return Value{Null: true}
	}
	switch {
	case k == heap.KindText:
		return Value{K: vText, S: *s}
	case k.IsFloat():
		bitsz := 64
		if k == heap.KindFloat4 {
			bitsz = 32
		}
		f, err := strconv.ParseFloat(*s, bitsz)
		if err != nil {
			switch *s {
			case "NaN":
				f = math.NaN()
			case "Infinity":
				f = math.Inf(1)
			case "-Infinity":
				f = math.Inf(-1)
			}
		}
		return Value{K: vFloat, F: f}
	case k == heap.KindBool:
		return Value{K: vInt, I: int64(b2u(*s == "t"))}
	case k == heap.KindNumeric:
		return refNumeric(*s)
	case k == heap.KindDate || k == heap.KindTimestamp || k == heap.KindTimestampTZ:
		i, _, err := heap.ParseText(k, []byte(*s))
		if err != nil {
			panic(err)
		}
		return Value{K: vInt, I: i}
	}
	i, _ := strconv.ParseInt(*s, 10, 64)
	return Value{K: vInt, I: i}
}

// refNumeric reads numeric_out's text keeping its display scale.
func refNumeric(s string) Value {
	switch s {
	case "NaN", "Infinity", "-Infinity":
		return Value{K: vNumeric, S: s}
	}
	whole, frac, _ := strings.Cut(s, ".")
	n, ok := new(big.Int).SetString(whole+frac, 10)
	if !ok {
		panic(s)
	}
	return Value{K: vNumeric, Num: n, Scale: int32(len(frac))}
}

// refNumRat is a finite numeric's value; class orders the specials.
func refNumCmp(a, b Value) int {
	class := func(v Value) int {
		return map[string]int{"-Infinity": -1, "Infinity": 1, "NaN": 2}[v.S]
	}
	ca, cb := class(a), class(b)
	if ca != cb || ca != 0 {
		return ca - cb
	}
	rat := func(v Value) *big.Rat {
		return new(big.Rat).SetFrac(v.Num, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(v.Scale)), nil))
	}
	return rat(a).Cmp(rat(b))
}

// refCompare orders two reference values of one kind.
func refCompare(a, b Value) int {
	switch a.K {
	case vNumeric:
		return refNumCmp(a, b)
	case vText:
		return strings.Compare(a.S, b.S)
	case vFloat:
		return floatCmp(a.F, b.F)
	}
	return cmp64(a.I, b.I)
}

// refEval is three-valued: 1 TRUE, 0 FALSE, -1 UNKNOWN.
func refEval(e *Expr, row refRow) int {
	switch e.Op {
	case "and", "or", "not":
		var rs []int
		for _, a := range e.Args {
			rs = append(rs, refEval(a, row))
		}
		switch e.Op {
		case "not":
			if rs[0] < 0 {
				return -1
			}
			return 1 - rs[0]
		case "and":
			if slices.Contains(rs, 0) {
				return 0
			}
			if slices.Contains(rs, -1) {
				return -1
			}
			return 1
		}
		if slices.Contains(rs, 1) {
			return 1
		}
		if slices.Contains(rs, -1) {
			return -1
		}
		return 0
	}
	c := colIndex(e.Col)
	k := modelSchema.Columns[c].Kind
	s := row[c]
	switch e.Op {
	case "is_null":
		return int(b2u(s == nil))
	case "is_not_null":
		return int(b2u(s != nil))
	}
	if s == nil {
		return -1
	}
	if e.Op == "like" {
		p := e.Values[0]
		if strings.HasSuffix(p, "%") {
			return int(b2u(strings.HasPrefix(*s, p[:len(p)-1])))
		}
		return int(b2u(*s == p))
	}
	v := refValue(k, s)
	lit := func(i int) Value { x, _ := parseLiteral(k, e.Values[i]); return x }
	cmp := func(i int) int {
		w := lit(i)
		if v.K == vNumeric && w.S == "" && w.Num == nil {
			w.Num = big.NewInt(0)
		}
		return refCompare(v, w)
	}
	switch e.Op {
	case "in":
		for i := range e.Values {
			if cmp(i) == 0 {
				return 1
			}
		}
		return 0
	case "between":
		return int(b2u(cmp(0) >= 0 && cmp(1) <= 0))
	}
	return int(b2u(cmpOK(e.Op, cmp(0))))
}

func colIndex(name string) int {
	for i, c := range modelSchema.Columns {
		if c.Name == name {
			return i
		}
	}
	panic(name)
}

// refRun answers req row at a time: filter, group, aggregate (exact sums
// with big.Int, floats in row order), HAVING, ORDER BY, LIMIT.
func refRun(t *testing.T, req Request, rows []refRow, p *Plan) [][]Value {
	type grp struct {
		key  []Value
		rows []refRow
	}
	var groups []*grp
	find := func(key []Value) *grp {
		for _, g := range groups {
			same := true
			for i := range key {
				a, b := key[i], g.key[i]
				if a.Null != b.Null || !a.Null && refCompare(a, b) != 0 {
					same = false
				}
			}
			if same {
				return g
			}
		}
		g := &grp{key: key}
		groups = append(groups, g)
		return g
	}
	if len(req.GroupBy) == 0 {
		find(nil)
	}
	for _, r := range rows {
		if req.Where != nil && refEval(req.Where, r) != 1 {
			continue
		}
		var key []Value
		for _, g := range req.GroupBy {
			c := colIndex(g)
			key = append(key, refValue(modelSchema.Columns[c].Kind, r[c]))
		}
		g := find(key)
		g.rows = append(g.rows, r)
	}
	var out [][]Value
	for _, g := range groups {
		row := append([]Value(nil), g.key...)
		for _, a := range req.Aggs {
			row = append(row, refAgg(a, g.rows))
		}
		out = append(out, row)
	}
	res := &Result{Rows: out, Columns: p.Columns}
	res, err := finish(p, res)
	if err != nil {
		t.Fatal(err)
	}
	return res.Rows
}

func refAgg(a Agg, rows []refRow) Value {
	if a.Col == "" {
		return Value{K: vInt, I: int64(len(rows))}
	}
	c := colIndex(a.Col)
	k := modelSchema.Columns[c].Kind
	var vals []Value
	for _, r := range rows {
		if v := refValue(k, r[c]); !v.Null {
			vals = append(vals, v)
		}
	}
	if a.Func == "count" {
		return Value{K: vInt, I: int64(len(vals))}
	}
	if len(vals) == 0 {
		return Value{Null: true}
	}
	switch a.Func {
	case "min", "max":
		best := vals[0]
		for _, v := range vals[1:] {
			c := refCompare(v, best)
			if a.Func == "min" && c < 0 || a.Func == "max" && c > 0 {
				best = v
			}
		}
		return best
	}
	if k.IsFloat() {
		var s float64
		var s32 float32
		for _, v := range vals {
			s += v.F
			s32 += float32(v.F)
		}
		if a.Func == "avg" {
			return Value{K: vFloat, F: s / float64(len(vals))}
		}
		if k == heap.KindFloat4 {
			return Value{K: vFloat, F: float64(s32)}
		}
		return Value{K: vFloat, F: s}
	}
	if k == heap.KindNumeric {
		return refNumSum(a.Func, vals)
	}
	sum := new(big.Int)
	for _, v := range vals {
		sum.Add(sum, big.NewInt(v.I))
	}
	if a.Func == "avg" {
		return numericDiv(sum, 0, int64(len(vals)))
	}
	if k == heap.KindInt8 {
		return Value{K: vNumeric, Num: sum}
	}
	return Value{K: vInt, I: sum.Int64()}
}

// refNumSum is sum or avg of numerics: big.Rat, NaN and infinities as
// PostgreSQL's numeric aggregates treat them, the result at the largest
// display scale.
func refNumSum(fn string, vals []Value) Value {
	sum, scale := new(big.Rat), int32(0)
	specials := map[string]int{}
	for _, v := range vals {
		if v.S != "" {
			specials[v.S]++
			continue
		}
		scale = max(scale, v.Scale)
		sum.Add(sum, new(big.Rat).SetFrac(v.Num, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(v.Scale)), nil)))
	}
	switch {
	case specials["NaN"] > 0 || specials["Infinity"] > 0 && specials["-Infinity"] > 0:
		return Value{K: vNumeric, S: "NaN"}
	case specials["Infinity"] > 0:
		return Value{K: vNumeric, S: "Infinity"}
	case specials["-Infinity"] > 0:
		return Value{K: vNumeric, S: "-Infinity"}
	}
	u := new(big.Int).Mul(sum.Num(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	u.Quo(u, sum.Denom()) // exact: every input has at most scale decimals
	if fn == "avg" {
		return numericDiv(u, scale, int64(len(vals)))
	}
	return Value{K: vNumeric, Num: u, Scale: scale}
}

// --- random requests ---

func randLiteral(r *rand.Rand, col string) string {
	c := colIndex(col)
	if c == 0 { // the key: randCell makes no values for it
		return strconv.Itoa(r.IntN(1000))
	}
	for {
		if b := randCell(r, c); b != nil {
			if col == "t" && r.IntN(3) == 0 {
				return string(b) + "%"
			}
			return string(b)
		}
	}
}

func randExpr(r *rand.Rand, depth int) *Expr {
	if depth > 0 && r.IntN(3) == 0 {
		op := []string{"and", "or", "not"}[r.IntN(3)]
		e := &Expr{Op: op}
		n := 1
		if op != "not" {
			n = 2 + r.IntN(2)
		}
		for range n {
			e.Args = append(e.Args, randExpr(r, depth-1))
		}
		return e
	}
	col := modelSchema.Columns[1+r.IntN(len(modelSchema.Columns)-1)].Name
	ops := []string{"=", "<>", "<", "<=", ">", ">=", "between", "in", "is_null", "is_not_null"}
	if col == "t" {
		ops = append(ops, "like", "like")
	}
	op := ops[r.IntN(len(ops))]
	e := &Expr{Op: op, Col: col}
	switch op {
	case "is_null", "is_not_null":
	case "between":
		e.Values = []string{randLiteral(r, col), randLiteral(r, col)}
	case "in":
		for range 1 + r.IntN(3) {
			e.Values = append(e.Values, randLiteral(r, col))
		}
	case "like":
		e.Values = []string{randLiteral(r, col)}
		if !strings.HasSuffix(e.Values[0], "%") {
			e.Values[0] += "%"
		}
	default:
		e.Values = []string{randLiteral(r, col)}
	}
	if col == "t" && op != "like" {
		for i, v := range e.Values {
			e.Values[i] = strings.TrimSuffix(v, "%")
		}
	}
	return e
}

func randRequest(r *rand.Rand) Request {
	req := Request{Table: "m"}
	fns := []string{"count", "sum", "min", "max", "avg"}
	for range 1 + r.IntN(4) {
		fn := fns[r.IntN(len(fns))]
		col := modelSchema.Columns[r.IntN(len(modelSchema.Columns))].Name
		if fn == "count" && r.IntN(2) == 0 {
			col = ""
		}
		if _, err := aggType(fn, modelSchema.Columns[colIndex(col+map[bool]string{true: "id"}[col == ""])].Kind); err != nil {
			continue
		}
		a := Agg{Func: fn, Col: col}
		if !slices.Contains(req.Aggs, a) {
			req.Aggs = append(req.Aggs, a)
		}
	}
	if len(req.Aggs) == 0 {
		req.Aggs = []Agg{{Func: "count"}}
	}
	// GROUP BY every kind of column, alone and mixed (half the requests
	// are not grouped).
	groupings := [][]string{{"a"}, {"t"}, {"bl", "a"}, {"d"}, {"tz", "bl"}, {"n"}, {"f"}, {"n", "t"},
		{"ts", "g", "bl"}, {"f", "d", "n"}, {"b", "tz"}}
	if k := r.IntN(2 * len(groupings)); k < len(groupings) {
		req.GroupBy = groupings[k]
	}
	if r.IntN(4) != 0 {
		req.Where = randExpr(r, 3)
	}
	if r.IntN(3) == 0 {
		// A primary-key range (id is the key of the model rows).
		lo := r.Int64N(2200) - 100
		var kp *Expr
		switch r.IntN(4) {
		case 0:
			kp = &Expr{Op: "between", Col: "id", Values: []string{strconv.FormatInt(lo, 10), strconv.FormatInt(lo+r.Int64N(300), 10)}}
		case 1:
			kp = &Expr{Op: []string{"<", "<=", ">", ">=", "="}[r.IntN(5)], Col: "id", Values: []string{strconv.FormatInt(lo, 10)}}
		case 2:
			kp = &Expr{Op: "in", Col: "id", Values: []string{strconv.FormatInt(lo, 10), strconv.FormatInt(lo+r.Int64N(50), 10)}}
		default:
			kp = &Expr{Op: "and", Args: []*Expr{{Op: ">", Col: "id", Values: []string{strconv.FormatInt(lo, 10)}}, {Op: "<", Col: "id", Values: []string{strconv.FormatInt(lo-r.Int64N(3)+r.Int64N(400), 10)}}}}
		}
		if req.Where == nil {
			req.Where = kp
		} else {
			req.Where = &Expr{Op: "and", Args: []*Expr{kp, req.Where}}
		}
	}
	if len(req.GroupBy) > 0 && r.IntN(3) == 0 {
		req.Having = &Expr{Op: ">", Col: req.Aggs[0].Name(), Values: []string{"1"}}
		if a := req.Aggs[0]; (a.Func == "min" || a.Func == "max") && slices.Contains([]string{"t", "d", "ts", "tz", "n"}, a.Col) {
			req.Having.Values = []string{strings.TrimSuffix(randLiteral(r, a.Col), "%")}
		}
		if strings.Contains(req.Aggs[0].Name(), "(bl)") && req.Aggs[0].Func != "count" {
			req.Having = nil
		}
	}
	if r.IntN(2) == 0 {
		// A total order: an aggregate first, then every group column. A
		// float sum or average is not a sort key here: its value depends
		// on the order of addition (in PostgreSQL too), so two groups a
		// rounding error apart may rightly come out in either order.
		var exact []Agg
		for _, a := range req.Aggs {
			if !inexactAgg(a) {
				exact = append(exact, a)
			}
		}
		req.OrderBy = nil
		if len(exact) > 0 {
			req.OrderBy = []Order{{Key: exact[r.IntN(len(exact))].Name(), Desc: r.IntN(2) == 0}}
		}
		for _, g := range req.GroupBy {
			req.OrderBy = append(req.OrderBy, Order{Key: g})
		}
		if r.IntN(2) == 0 {
			req.Limit = 1 + r.IntN(5)
		}
	}
	return req
}

// floatSumRefusal reports whether err is the engine's refusal of a
// float sum or average whose value would depend on the order of rows
// (types.FloatSumGuard, 0A000), failing t when the refusal is not one
// the data allows: every value the query's float sums and averages add
// (rows passing its WHERE) is then finite-and-a-multiple-of-¼-below-2¹⁶
// (the generator's quarters, 1.5, -2.25, ±0) or ±Inf/NaN, a class whose
// every partial sum is exact in any order, so it must be answered.
func floatSumRefusal(t *testing.T, err error, req Request, rows []refRow, where string) bool {
	t.Helper()
	var te *types.Error
	if !errors.As(err, &te) || te.Code != types.CodeUnsupported || !strings.Contains(te.Message, "depend on the order") {
		return false
	}
	for _, a := range req.Aggs {
		if !inexactAgg(a) {
			continue
		}
		c := colIndex(a.Col)
		k := modelSchema.Columns[c].Kind
		for _, r := range rows {
			if req.Where != nil && refEval(req.Where, r) != 1 {
				continue
			}
			v := refValue(k, r[c])
			if v.Null || math.IsInf(v.F, 0) || v.F != v.F {
				continue
			}
			if q := v.F * 4; q != math.Trunc(q) || math.Abs(v.F) >= 1<<16 {
				return true // an arbitrary value: the refusal may be right
			}
		}
	}
	t.Fatalf("%s: %s refused (%v), yet every value it sums is a small multiple of ¼ (order free)", where, reqJSON(req), err)
	return true
}

// inexactAgg reports whether an aggregate's result depends on the order
// its inputs are added in: a sum or average of a float column.
func inexactAgg(a Agg) bool {
	if a.Func != "sum" && a.Func != "avg" {
		return false
	}
	return modelSchema.Columns[colIndex(a.Col)].Kind.IsFloat()
}

// sameValue compares an engine cell with the reference's: exact, -0
// equal to 0.
func sameValue(a, b Value, typ string, agg string) bool {
	if a.Null || b.Null {
		return a.Null == b.Null
	}
	if a.K == vFloat && b.K == vFloat {
		if floatCmp(a.F, b.F) == 0 {
			return true
		}
		// A float sum or average is answered only when every order of
		// addition gives its value (else refused: floatSumRefusal), so
		// the reference's row order must give it exactly too.
		return false
	}
	return FormatValue(a, typ) == FormatValue(b, typ)
}

func TestModel(t *testing.T) {
	// 30 seeds from the clock (4 under -race), or -seed alone to replay the one that failed.
	base := uint64(time.Now().UnixNano())
	var seeds []uint64
	for i := range uint64(rounds(30, 4)) {
		seeds = append(seeds, base+i)
	}
	for seed := range seed.Each(t, seedFlag, seeds) {
		r := rand.New(rand.NewPCG(seed, seed))
		h := buildHeap(t, r)
		snap := h.Snapshot()
		rows := refRows(t, snap)
		for q := range 60 {
			req := randRequest(r)
			p, err := Bind(req, modelSchema)
			if err != nil {
				t.Fatalf("seed %d query %d: bind %+v: %v", seed, q, req, err)
			}
			want := refRun(t, req, rows, p)
			opts := []Options{{Workers: 1}, {Workers: 3}, {Workers: 2, NoSummaries: true}}
			if kr, ok := p.KeyRangeOf("id"); ok {
				// The rows of the key range (as the index gives them), plus
				// a few others: the scan must still filter them out.
				only := keyRangeRows(snap, kr, r)
				opts = append(opts, Options{Workers: 2, Only: &only})
			}
			for _, opt := range opts {
				res, err := Run(t.Context(), p, FromSnapshot(snap), opt)
				if err != nil {
					if errors.Is(err, ErrBadRequest) || strings.Contains(err.Error(), "out of range") ||
						floatSumRefusal(t, err, req, rows, fmt.Sprintf("seed %d query %d", seed, q)) ||
						minMaxTieRefusal(t, err, req, rows, fmt.Sprintf("seed %d query %d", seed, q)) {
						continue
					}
					t.Fatalf("seed %d query %d: %v", seed, q, err)
				}
				if msg := diffRows(res.Rows, want, p); msg != "" {
					t.Fatalf("replay with -seed %d: query %d %s (where %s) opts %+v: %s", seed, q, reqJSON(req), req.Where, opt, msg)
				}
			}
		}
		snap.Release()
		h.Close()
	}
}

// keyRangeRows is the ids of the rows whose id is in kr (none when it is
// empty), and some rows outside it.
func keyRangeRows(s *heap.Snapshot, kr KeyRange, r *rand.Rand) []heap.RowID {
	var ids []heap.RowID
	s.ForEach(func(id heap.RowID, row []byte) bool {
		v, _, _ := rowenc.Column(row, 0)
		k, _ := strconv.ParseInt(string(v), 10, 64)
		if !kr.Empty && k >= kr.Lo && k <= kr.Hi || r.IntN(20) == 0 {
			ids = append(ids, id)
		}
		return true
	})
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return ids
}

func diffRows(got, want [][]Value, p *Plan) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d\ngot  %s\nwant %s", len(got), len(want), showRows(got, p), showRows(want, p))
	}
	for i := range got {
		for c := range got[i] {
			if !sameValue(got[i][c], want[i][c], p.Columns[c].Type, p.Columns[c].Name) {
				return fmt.Sprintf("row %d col %s: got %s want %s\ngot  %s\nwant %s", i, p.Columns[c].Name,
					show(got[i][c], p.Columns[c].Type), show(want[i][c], p.Columns[c].Type), showRows(got, p), showRows(want, p))
			}
		}
	}
	return ""
}

func show(v Value, typ string) string {
	if v.Null {
		return "NULL"
	}
	return FormatValue(v, typ)
}

func showRows(rows [][]Value, p *Plan) string {
	var b strings.Builder
	for i, r := range rows {
		if i == 8 {
			b.WriteString("…")
			break
		}
		b.WriteString("[")
		for c, v := range r {
			if c > 0 {
				b.WriteString(" ")
			}
			b.WriteString(show(v, p.Columns[c].Type))
		}
		b.WriteString("] ")
	}
	return b.String()
}

func reqJSON(req Request) string {
	b, _ := json.Marshal(req)
	return string(b)
}
