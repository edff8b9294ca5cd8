package head

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestBankReadersSeeOneVersion moves money between accounts, two rows per
// transaction, while readers sum every balance through Range and read
// single accounts through Get: every sum must be the constant total, and a
// read never sees half a transfer (run with -race).
func TestBankReadersSeeOneVersion(t *testing.T) {
	sd := seed(t)
	rng := rand.New(rand.NewPCG(sd, 9))
	f := openFeed(t)
	rel := relation(1, "bank")
	const accounts, each = 2000, 100
	rows := map[int]int{}
	for i := range accounts {
		rows[i] = each
	}
	mod := New(Options{Heap: heapSmallPages})
	sub, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	f.copyTable(rel, rows)
	f.waitDelivered(sub)

	var stop atomic.Bool
	var sums, retries atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, 4)
	for r := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				total, n := 0, 0
				err := mod.Range("public.bank", nil, nil, 0, mod.LSN(), func(_, row []byte) bool {
					v, _, err := rowenc.Column(row, 1)
					if err != nil {
						return false
					}
					b, _ := strconv.Atoi(string(v))
					total += b
					n++
					return true
				})
				if errors.Is(err, ErrNotAtVersion) {
					retries.Add(1)
					continue
				}
				if err != nil {
					errc <- err
					return
				}
				if total != accounts*each || n != accounts {
					errc <- errorf("reader %d: %d accounts hold %d, want %d in %d", r, n, total, accounts*each, accounts)
					return
				}
				sums.Add(1)
			}
		}()
	}
	for range 400 {
		from, to := rng.IntN(accounts), rng.IntN(accounts)
		if from == to {
			continue
		}
		amt := rng.IntN(50)
		rows[from] -= amt
		rows[to] += amt
		ch := []wal.Change{
			{Kind: wal.Update, Relation: rel, New: vals(from, rows[from], "x"+strconv.Itoa(rng.IntN(1e6)))},
			{Kind: wal.Update, Relation: rel, New: vals(to, rows[to], "y")},
		}
		f.commit(ch)
	}
	f.waitDelivered(sub)
	stop.Store(true)
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatalf("seed %d: %v", sd, err)
	}
	if _, err := mod.Compare(t.Context(), f.m); err != nil {
		t.Fatalf("seed %d: %v", sd, err)
	}
	if sums.Load() == 0 {
		t.Fatal("no reader finished a sum")
	}
	t.Logf("%d consistent sums, %d reads retried (model behind the version asked)", sums.Load(), retries.Load())
}
