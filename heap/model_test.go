package heap

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/rowenc"
)

var modelSchema = Schema{Columns: []Column{
	{"id", KindInt8}, {"score", KindInt4}, {"grp", KindInt2}, {"note", KindText},
	{"f", KindFloat8}, {"n", KindNumeric}, {"d", KindDate}, {"ok", KindBool},
}}

// randRow returns a random canonical row of modelSchema; NULLs in every
// column but id, long notes now and then (to force moves).
func randRow(r *rand.Rand, id int64) []byte {
	vals := make([][]byte, 8)
	vals[0] = strconv.AppendInt(nil, id, 10)
	null := func() bool { return r.IntN(10) == 0 }
	if !null() {
		vals[1] = strconv.AppendInt(nil, r.Int64N(1<<32)-1<<31, 10)
	}
	if !null() {
		vals[2] = strconv.AppendInt(nil, r.Int64N(1<<16)-1<<15, 10)
	}
	if !null() {
		n := r.IntN(40)
		if r.IntN(20) == 0 {
			n = r.IntN(3000)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		vals[3] = b
	}
	if !null() {
		specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0}
		f := r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		if r.IntN(10) == 0 {
			f = specials[r.IntN(len(specials))]
		}
		vals[4] = appendFloat(nil, f, 64)
	}
	if !null() {
		switch r.IntN(20) {
		case 0:
			vals[5] = []byte([]string{"NaN", "Infinity", "-Infinity"}[r.IntN(3)])
		case 1:
			vals[5] = []byte("123456789012345678901234567890." + strconv.Itoa(r.IntN(1000)))
		default:
			vals[5] = appendNumeric(nil, r.Int64N(1e12)-5e11, uint8(r.IntN(6)))
		}
	}
	if !null() {
		vals[6] = appendDate(nil, r.Int64N(2e6)-1e6)
	}
	if !null() {
		vals[7] = []byte{"ft"[r.IntN(2)]}
	}
	return rowenc.Encode(vals)
}

// TestModel applies random batches of inserts, updates and deletes, with
// vacuums and full compactions in between, to a heap and to a map from row
// id to row, and checks after every step that the heap holds exactly the
// map's rows, that its summaries are exact, and that snapshots taken
// earlier still show their own version.
func TestModel(t *testing.T) {
	seed := seed.New(t, seedFlag)
	r := rand.New(rand.NewPCG(seed, 1))
	pf := testPageFile(t, 32<<10)
	for _, cfg := range []Config{
		{PageRows: 64, PageBytes: 4096},
		{PageRows: 300, PageBytes: 16 << 10, FillFactor: 100, DeadPercent: -1},
		{PageRows: 1024, DeadPercent: 50},
		{PageRows: 32, PageBytes: 2048, Memory: 64 << 10},
		{PageRows: 32, PageBytes: 2048, Budget: NewPageBudget(256 << 10)},
		{PageRows: 32, PageBytes: 2048, Memory: 64 << 10, Pages: pf},
		{PageRows: 32, PageBytes: 2048, Budget: NewPageBudget(128 << 10), Pages: pf},
	} {
		t.Run(fmt.Sprintf("rows%d-bytes%d-mem%d-disk%v", cfg.PageRows, cfg.PageBytes, cfg.Memory, cfg.Pages != nil), func(t *testing.T) {
			steps := 150
			if cfg.Pages != nil {
				steps = 80 // the same paths as above, plus the page file's
			}
			runModel(t, r, cfg, steps)
		})
	}
}

func runModel(t *testing.T, r *rand.Rand, cfg Config, steps int) {
	h, err := New(modelSchema, cfg)
	if err != nil {
		t.Fatal(err)
	}
	model := map[RowID][]byte{}
	nextID := int64(0)
	type held struct {
		snap *Snapshot
		rows map[RowID][]byte
	}
	var old []held
	moved := 0
	for step := range steps {
		switch k := r.IntN(20); {
		case k == 0:
			h.Vacuum()
		case k == 1:
			remap := map[RowID]RowID{}
			for _, m := range h.Compact() {
				remap[m.Old] = m.New
			}
			next := make(map[RowID][]byte, len(model))
			for id, row := range model {
				if n, ok := remap[id]; ok {
					id = n
				}
				if _, dup := next[id]; dup {
					t.Fatalf("step %d: compaction gave two rows id %d", step, id)
				}
				next[id] = row
			}
			model = next
		default:
			var b Batch
			b.LSN = uint64(step)
			ids := keys(model)
			pending := map[RowID]bool{}
			for range r.IntN(200) + 1 {
				switch op := r.IntN(10); {
				case op < 5 || len(ids) == 0:
					nextID++
					b.Ops = append(b.Ops, Op{Kind: OpInsert, Row: randRow(r, nextID)})
				case op < 8:
					id := ids[r.IntN(len(ids))]
					if pending[id] {
						continue
					}
					pending[id] = true // it may move: one op per row and batch
					b.Ops = append(b.Ops, Op{Kind: OpUpdate, ID: id, Row: randRow(r, int64(id))})
				default:
					id := ids[r.IntN(len(ids))]
					if pending[id] {
						continue
					}
					pending[id] = true
					b.Ops = append(b.Ops, Op{Kind: OpDelete, ID: id})
				}
			}
			got, err := h.Apply(b)
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			for i, op := range b.Ops {
				switch op.Kind {
				case OpInsert:
					if _, dup := model[got[i]]; dup {
						t.Fatalf("step %d: insert got live row id %d", step, got[i])
					}
					model[got[i]] = op.Row
				case OpUpdate:
					delete(model, op.ID)
					model[got[i]] = op.Row
					if got[i] != op.ID {
						moved++
					}
				case OpDelete:
					delete(model, op.ID)
				}
			}
		}
		if cfg.Pages != nil && step%10 == 0 {
			runtime.GC() // records no version reaches are freed, their space reused
		}
		snap := h.Snapshot()
		checkModel(t, step, snap, model)
		if r.IntN(10) == 0 {
			old = append(old, held{snap, clone(model)})
		} else {
			snap.Release()
		}
	}
	for _, o := range old {
		checkModel(t, -1, o.snap, o.rows)
		o.snap.Release()
	}
	if n := h.OpenSnapshots(); n != 0 {
		t.Fatalf("%d snapshots open", n)
	}
	// An empty batch touches no page: after it the bound holds.
	if _, err := h.Apply(Batch{LSN: uint64(steps)}); err != nil {
		t.Fatal(err)
	}
	m := h.Memory()
	if cfg.Memory > 0 && (m.ColdPages == 0 || m.DecodedBytes > cfg.Memory) {
		t.Fatalf("memory bound %d: %+v", cfg.Memory, m)
	}
	t.Logf("%d rows at the end, %d moved by updates; %+v", len(model), moved, m)
}

func checkModel(t *testing.T, step int, snap *Snapshot, model map[RowID][]byte) {
	t.Helper()
	if err := checkInvariants(snap); err != nil {
		t.Fatalf("step %d: %v", step, err)
	}
	if snap.Rows() != int64(len(model)) {
		t.Fatalf("step %d: %d rows, model %d", step, snap.Rows(), len(model))
	}
	n := 0
	snap.ForEach(func(id RowID, row []byte) bool {
		n++
		want, ok := model[id]
		if !ok || string(want) != string(row) {
			t.Fatalf("step %d: row %d = %q, model %q (%v)", step, id, row, want, ok)
		}
		// A projection (columns reversed, one twice) is the model's values
		// of those columns, re-encoded.
		cols := []int{}
		for c := len(snap.h.schema.Columns) - 1; c >= 0; c-- {
			cols = append(cols, c)
		}
		cols = append(cols, 0)
		var proj []byte
		for _, c := range cols {
			v, null, err := rowenc.Column(want, c)
			switch {
			case err != nil:
				t.Fatalf("step %d: model row %q: %v", step, want, err)
			case null:
				proj = rowenc.AppendNull(proj)
			default:
				proj = rowenc.AppendValue(proj, v)
			}
		}
		if got, ok := snap.RowColumns(nil, id, cols); !ok || string(got) != string(proj) {
			t.Fatalf("step %d: row %d columns %v = %q, want %q", step, id, cols, got, proj)
		}
		return true
	})
	if n != len(model) {
		t.Fatalf("step %d: %d rows iterated, model %d", step, n, len(model))
	}
	// Table sums against the model.
	var sum big.Int
	var cnt int64
	for _, row := range model {
		v, null, _ := rowenc.Column(row, 1)
		if !null {
			x, _ := strconv.ParseInt(string(v), 10, 64)
			sum.Add(&sum, big.NewInt(x))
			cnt++
		}
	}
	st := snap.Stats(1)
	if st.Count != cnt || st.Sum.Big().Cmp(&sum) != 0 {
		t.Fatalf("step %d: score count/sum %d/%v, model %d/%v", step, st.Count, st.Sum, cnt, &sum)
	}
	// Text and numeric min/max against the model (bytewise; by value with
	// -Infinity < finite < Infinity < NaN).
	var minB, maxB []byte
	var minN, maxN *Numeric
	for _, row := range model {
		if v, null, _ := rowenc.Column(row, 3); !null {
			if minB == nil || bytes.Compare(v, minB) < 0 {
				minB = v
			}
			if maxB == nil || bytes.Compare(v, maxB) > 0 {
				maxB = v
			}
		}
		if v, null, _ := rowenc.Column(row, 5); !null {
			n := &Numeric{Text: v} // every value as text: the slow, independent path
			if minN == nil || numRat2(n, minN) < 0 {
				minN = n
			}
			if maxN == nil || numRat2(n, maxN) > 0 {
				maxN = n
			}
		}
	}
	if tx := snap.Stats(3); minB != nil && (!bytes.Equal(tx.MinB, minB) || !bytes.Equal(tx.MaxB, maxB)) {
		t.Fatalf("step %d: note min/max %q/%q, model %q/%q", step, tx.MinB, tx.MaxB, minB, maxB)
	}
	if nm := snap.Stats(5); minN != nil && (numRat2(&nm.MinN, minN) != 0 || numRat2(&nm.MaxN, maxN) != 0) {
		t.Fatalf("step %d: n min/max %v/%v, model %s/%s", step, nm.MinN, nm.MaxN, minN.Text, maxN.Text)
	}
}

// numRat2 compares two numerics, each given by text or by value, through
// big.Rat and the specials' order.
func numRat2(a, b *Numeric) int {
	class := func(n *Numeric) int {
		if n.Text == nil {
			return 0
		}
		return map[string]int{"-Infinity": -1, "Infinity": 1, "NaN": 2}[string(n.Text)]
	}
	if ca, cb := class(a), class(b); ca != cb || ca != 0 {
		return ca - cb
	}
	r := func(n *Numeric) *big.Rat {
		if n.Text == nil {
			return new(big.Rat).SetFrac(big.NewInt(n.Unscaled), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n.Scale)), nil))
		}
		x, ok := new(big.Rat).SetString(string(n.Text))
		if !ok {
			panic("bad numeric text " + string(n.Text))
		}
		return x
	}
	return r(a).Cmp(r(b))
}

func keys(m map[RowID][]byte) []RowID {
	out := make([]RowID, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func clone(m map[RowID][]byte) map[RowID][]byte {
	c := make(map[RowID][]byte, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
