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

// bank is the bank workload the concurrency tests share: accounts rows of
// public.bank holding each apiece, copied through a mirror into a model
// subscribed to it; transfers move money between two accounts in one
// transaction while readers check that every read sees one version.
type bank struct {
	t        *testing.T
	sd       uint64 // the seed, for failure messages
	rng      *rand.Rand
	f        *feed
	rel      *wal.Relation
	accounts int
	rows     map[int]int // the reference: account → balance
	mod      *Model
	sub      *mirror.Subscription
}

// newBank copies the accounts and waits until the model holds them;
// stream tells the tests' random streams apart.
func newBank(t *testing.T, stream uint64, accounts, each int) *bank {
	sd := seed(t)
	b := &bank{t: t, sd: sd, rng: rand.New(rand.NewPCG(sd, stream)), f: openFeed(t), rel: relation(1, "bank"),
		accounts: accounts, rows: map[int]int{}}
	for i := range accounts {
		b.rows[i] = each
	}
	b.mod = New(Options{Heap: heapSmallPages})
	sub, err := b.f.m.Subscribe(b.mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Close() })
	b.sub = sub
	b.f.copyTable(b.rel, b.rows)
	b.f.waitDelivered(sub)
	return b
}

// readers runs n readers, each calling read(reader) until stopped; the
// returned stop ends them and fails the test with the first error one
// returned.
func (b *bank) readers(n int, read func(r int) error) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	errc := make(chan error, n)
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				if err := read(r); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	return func() {
		b.t.Helper()
		done.Store(true)
		wg.Wait()
		close(errc)
		for err := range errc {
			b.t.Fatalf("seed %d: %v", b.sd, err)
		}
	}
}

// transfers commits n transfers between random accounts (note gives the
// debited row's note), then waits until the model has them all.
func (b *bank) transfers(n int, note func() string) {
	for range n {
		from, to := b.rng.IntN(b.accounts), b.rng.IntN(b.accounts)
		if from == to {
			continue
		}
		amt := b.rng.IntN(50)
		b.rows[from] -= amt
		b.rows[to] += amt
		b.f.commit([]wal.Change{
			{Kind: wal.Update, Relation: b.rel, New: vals(from, b.rows[from], note())},
			{Kind: wal.Update, Relation: b.rel, New: vals(to, b.rows[to], "y")},
		})
	}
	b.f.waitDelivered(b.sub)
}

// TestBankReadersSeeOneVersion moves money between accounts, two rows per
// transaction, while readers sum every balance through Range and read
// single accounts through Get: every sum must be the constant total, and a
// read never sees half a transfer (run with -race).
func TestBankReadersSeeOneVersion(t *testing.T) {
	const accounts, each = 2000, 100
	b := newBank(t, 9, accounts, each)
	mod := b.mod
	var sums, retries atomic.Int64
	stop := b.readers(3, func(r int) error {
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
			return nil
		}
		if err != nil {
			return err
		}
		if total != accounts*each || n != accounts {
			return errorf("reader %d: %d accounts hold %d, want %d in %d", r, n, total, accounts*each, accounts)
		}
		sums.Add(1)
		return nil
	})
	b.transfers(400, func() string { return "x" + strconv.Itoa(b.rng.IntN(1e6)) })
	stop()
	if _, err := mod.Compare(t.Context(), b.f.m); err != nil {
		t.Fatalf("seed %d: %v", b.sd, err)
	}
	if sums.Load() == 0 {
		t.Fatal("no reader finished a sum")
	}
	t.Logf("%d consistent sums, %d reads retried (model behind the version asked)", sums.Load(), retries.Load())
}
