package heap

import (
	"math/bits"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/seed"
)

// TestBank is Badger's bank test for the heap: a writer moves money
// between accounts in batches (each batch one "transaction": the total is
// constant only at batch boundaries), replaces accounts (delete + insert
// in one batch), vacuums and fully compacts, while readers check on every
// snapshot that the total over the column segments, the maintained sum and
// the row count are exactly the initial ones. Run under -race, it also
// shows that the writer never writes a segment a reader may hold.
func TestBank(t *testing.T) {
	const accounts, initial = 200, 1000
	schema := Schema{Columns: []Column{{"id", KindInt8}, {"balance", KindInt8}, {"note", KindText}}}
	h := mustNew(t, schema, Config{PageRows: 32, PageBytes: 1024})
	var b Batch
	for i := range accounts {
		b.Ops = append(b.Ops, Op{Kind: OpInsert, Row: row(strconv.Itoa(i), strconv.Itoa(initial), "n")})
	}
	ids := mustApply(t, h, b)
	balance := make([]int64, accounts)
	for i := range balance {
		balance[i] = initial
	}
	const total = accounts * initial

	var stop atomic.Bool
	var checks atomic.Int64
	errs := make(chan string, 4)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				s := h.Snapshot()
				var sum int64
				n := 0
				for p := range s.NumPages() {
					pv := s.Page(p)
					live, nulls, vals := pv.Live(), pv.Nulls(1), pv.Int64s(1)
					for w, m := range live {
						m &^= nulls[w]
						n += bits.OnesCount64(live[w])
						for m != 0 {
							sum += vals[w*64+bits.TrailingZeros64(m)]
							m &= m - 1
						}
					}
				}
				st := s.Stats(1)
				if sum != total || st.Sum != (Int128{Lo: total}) || n != accounts || s.Rows() != accounts {
					select {
					case errs <- "lsn " + strconv.FormatUint(s.LSN(), 10) + ": scan sum " + strconv.FormatInt(sum, 10) + ", kept sum " + st.Sum.String() + ", rows " + strconv.Itoa(n):
					default:
					}
				}
				s.Release()
				checks.Add(1)
			}
		}()
	}
	seed := seed.New(t, seedFlag)
	r := rand.New(rand.NewPCG(seed, 2))
	deadline := time.Now().Add(2 * time.Second)
	lsn := uint64(1)
	batches := 0
	for time.Now().Before(deadline) || checks.Load() < 100 {
		lsn++
		batches++
		switch r.IntN(30) {
		case 0:
			h.Vacuum()
			continue
		case 1:
			remap := map[RowID]RowID{}
			for _, m := range h.Compact() {
				remap[m.Old] = m.New
			}
			for i, id := range ids {
				if n, ok := remap[id]; ok {
					ids[i] = n
				}
			}
			continue
		}
		b := Batch{LSN: lsn}
		touched := map[int]bool{}
		var replaced []int
		for range r.IntN(8) + 1 {
			from, to := r.IntN(accounts), r.IntN(accounts)
			if from == to || touched[from] || touched[to] {
				continue
			}
			touched[from], touched[to] = true, true
			amt := r.Int64N(100)
			balance[from] -= amt
			balance[to] += amt
			b.Ops = append(b.Ops,
				Op{Kind: OpUpdate, ID: ids[from], Row: row(strconv.Itoa(from), strconv.FormatInt(balance[from], 10), "n"+strconv.Itoa(r.IntN(1000)))},
				Op{Kind: OpUpdate, ID: ids[to], Row: row(strconv.Itoa(to), strconv.FormatInt(balance[to], 10), "n")})
		}
		if a := r.IntN(accounts); r.IntN(3) == 0 && !touched[a] {
			b.Ops = append(b.Ops, Op{Kind: OpDelete, ID: ids[a]}, Op{Kind: OpInsert, Row: row(strconv.Itoa(a), strconv.FormatInt(balance[a], 10), "new")})
			replaced = append(replaced, a)
		}
		got, err := h.Apply(b)
		if err != nil {
			t.Fatal(err)
		}
		for i, op := range b.Ops {
			if op.Kind == OpUpdate {
				for a := range ids {
					if ids[a] == op.ID && touched[a] {
						ids[a] = got[i]
						break
					}
				}
			}
		}
		if len(replaced) > 0 {
			ids[replaced[0]] = got[len(got)-1]
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	s := h.Snapshot()
	defer s.Release()
	if err := checkInvariants(s); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d batches, %d consistent snapshots checked", batches, checks.Load())
}
