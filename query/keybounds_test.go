package query

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// keyKindOf is the key kind rowenc gives a column of heap kind k.
func keyKindOf(k heap.Kind) rowenc.KeyKind {
	switch k {
	case heap.KindInt2:
		return rowenc.KindInt2
	case heap.KindInt4:
		return rowenc.KindInt4
	case heap.KindInt8:
		return rowenc.KindInt8
	case heap.KindNumeric:
		return rowenc.KindNumeric
	case heap.KindDate:
		return rowenc.KindDate
	case heap.KindTimestamp, heap.KindTimestampTZ:
		return rowenc.KindTimestamp
	case heap.KindBool:
		return rowenc.KindBool
	}
	return rowenc.KindBytes
}

// keyNullText stands in for a NULL key cell (a primary key has none; a
// row with one fails every comparison on that column, so where it sorts
// does not matter).
var keyNullText = map[string]string{"a": "0", "t": "", "n": "0", "d": "2000-01-01", "ts": "2000-01-01 00:00:00",
	"tz": "2000-01-01 00:00:00+00", "c": "0", "bl": "f"}

// TestKeyBounds: for primary keys over every kind of column, alone and
// composite, WHERE's index key range holds every row the reference
// accepts, and the scan of only that range's rows (plus some others)
// answers as the reference does.
func TestKeyBounds(t *testing.T) {
	s := seed.New(t, seedFlag)
	r := rand.New(rand.NewPCG(s, s))
	keySets := [][]string{{"id"}, {"t", "id"}, {"n", "id"}, {"d", "ts", "id"}, {"tz", "id"}, {"a", "t", "n", "id"},
		{"t", "d", "id"}, {"c", "bl", "id"}}
	for round := range rounds(12, 3) {
		h := buildHeap(t, r)
		snap := h.Snapshot()
		rows := refRows(t, snap)
		var rowIDs []heap.RowID
		snap.ForEach(func(id heap.RowID, _ []byte) bool { rowIDs = append(rowIDs, id); return true })
		for _, names := range keySets {
			cols := make([]int, len(names))
			kinds := make([]rowenc.KeyKind, len(names))
			for i, n := range names {
				cols[i] = colIndex(n)
				kinds[i] = keyKindOf(modelSchema.Columns[cols[i]].Kind)
			}
			keys := make([][]byte, len(rows))
			for ri, row := range rows {
				for i, c := range cols {
					txt := keyNullText[names[i]]
					if row[c] != nil {
						txt = *row[c]
					}
					var err error
					if keys[ri], err = rowenc.AppendKeyColumn(keys[ri], kinds[i], []byte(txt)); err != nil {
						t.Fatalf("key %v of row %d: %v", names, ri, err)
					}
				}
			}
			for q := range 25 {
				req := randRequest(r)
				kw := keyWhere(r, names, rows)
				if req.Where == nil || r.IntN(2) == 0 {
					req.Where = kw
				} else {
					req.Where = &Expr{Op: "and", Args: []*Expr{kw, req.Where}}
				}
				p, err := Bind(req, modelSchema)
				if err != nil {
					t.Fatalf("round %d key %v query %d: bind %s: %v", round, names, q, reqJSON(req), err)
				}
				from, to, ok := p.KeyBounds(cols, kinds)
				if !ok {
					from, to = nil, nil // LIKE '%' bounds nothing: every row
				}
				var only []heap.RowID
				for ri, row := range rows {
					in := bytes.Compare(keys[ri], from) >= 0 && (to == nil || bytes.Compare(keys[ri], to) < 0)
					if !in && refEval(req.Where, row) == 1 {
						t.Fatalf("round %d key %v query %d: where %s accepts row %v, outside the key range [%x, %x)",
							round, names, q, req.Where, showRef(row), from, to)
					}
					if in || r.IntN(30) == 0 {
						only = append(only, rowIDs[ri])
					}
				}
				want := refRun(t, req, rows, p)
				res, err := Run(t.Context(), p, FromSnapshot(snap), Options{Workers: 2, Only: &only})
				if err != nil {
					if strings.Contains(err.Error(), "out of range") ||
						floatSumRefusal(t, err, req, rows, fmt.Sprintf("round %d key %v query %d", round, names, q)) ||
						minMaxTieRefusal(t, err, req, rows, fmt.Sprintf("round %d key %v query %d", round, names, q)) {
						continue
					}
					t.Fatalf("round %d key %v query %d: %v", round, names, q, err)
				}
				if msg := diffRows(res.Rows, want, p); msg != "" {
					t.Fatalf("round %d key %v query %d %s (where %s): %s", round, names, q, reqJSON(req), req.Where, msg)
				}
			}
		}
		snap.Release()
		h.Close()
	}
}

func showRef(row refRow) string {
	var parts []string
	for _, v := range row {
		if v == nil {
			parts = append(parts, "NULL")
		} else {
			parts = append(parts, *v)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// keyWhere is a conjunction on the key columns names: equalities on a
// random number of leading columns (values from a row, so that some rows
// match), then maybe comparisons on the next.
func keyWhere(r *rand.Rand, names []string, rows []refRow) *Expr {
	lit := func(col string) string {
		c := colIndex(col)
		if len(rows) > 0 && r.IntN(3) != 0 {
			if v := rows[r.IntN(len(rows))][c]; v != nil {
				return *v
			}
		}
		if col == "id" {
			return strconv.Itoa(r.IntN(2200) - 100)
		}
		return strings.TrimSuffix(randLiteral(r, col), "%")
	}
	var args []*Expr
	eqs := r.IntN(len(names))
	for _, n := range names[:eqs] {
		if r.IntN(4) == 0 {
			v := lit(n)
			args = append(args, &Expr{Op: "in", Col: n, Values: []string{v, v}})
			continue
		}
		args = append(args, &Expr{Op: "=", Col: n, Values: []string{lit(n)}})
	}
	next := names[eqs]
	for range 1 + r.IntN(2) {
		ops := []string{"=", "<", "<=", ">", ">=", "between", "in"}
		if next == "t" {
			ops = append(ops, "like", "like")
		}
		e := &Expr{Op: ops[r.IntN(len(ops))], Col: next}
		switch e.Op {
		case "between":
			e.Values = []string{lit(next), lit(next)}
			if r.IntN(3) != 0 {
				slices.SortFunc(e.Values, func(a, b string) int {
					x, _ := parseLiteral(modelSchema.Columns[colIndex(next)].Kind, a)
					y, _ := parseLiteral(modelSchema.Columns[colIndex(next)].Kind, b)
					if x.K == vNumeric && x.S == "" && x.Num == nil || y.K == vNumeric && y.S == "" && y.Num == nil {
						return 0
					}
					return refCompare(x, y)
				})
			}
		case "in":
			for range 1 + r.IntN(3) {
				e.Values = append(e.Values, lit(next))
			}
		case "like":
			v := lit(next)
			e.Values = []string{v[:r.IntN(len(v)+1)] + "%"}
		default:
			e.Values = []string{lit(next)}
		}
		args = append(args, e)
	}
	if len(args) == 1 {
		return args[0]
	}
	return &Expr{Op: "and", Args: args}
}
