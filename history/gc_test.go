package history

import (
	"context"
	"errors"
	"maps"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestGCWithConcurrentWriter collects garbage (a deleted branch's nodes)
// while a writer keeps committing, then checks that every version ever
// committed, and the branch that was kept, still read back exactly as
// the model recorded them, and that the deleted branch's own nodes are
// gone.
func TestGCWithConcurrentWriter(t *testing.T) {
	f := historytest.New(t)
	svc := New(f.DB, f.Mirror)
	ctx := t.Context()
	rel, cur := f.KVTable(200)
	states := map[string]map[string]string{}
	commit := func(i int) {
		id := strconv.Itoa((i * 37) % 200)
		val := "v" + strconv.Itoa(i)
		v := f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{historytest.S(id), historytest.S(val)}) })
		cur[id] = val
		states[v.EndLSN.String()] = maps.Clone(cur)
	}
	for i := range 30 {
		commit(i + 1)
	}
	// Garbage: a merge result kept as a branch whose rows exist nowhere
	// else, then deleted. A kept branch must survive.
	first := ""
	for l := range states {
		if first == "" || l < first {
			first = l
		}
	}
	if _, err := svc.Merge(ctx, MergeRequest{Ours: "HEAD", Theirs: first, Base: "HEAD~5", Branch: "keep"}, func(*Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	keep := readAll(t, svc, "keep")
	if _, err := svc.Merge(ctx, MergeRequest{Ours: "HEAD~3", Theirs: first, Base: "HEAD~20", Branch: "drop"}, func(*Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteBranch(ctx, "drop"); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	wg.Add(1)
	var stats struct {
		deleted int64
		err     error
	}
	go func() {
		defer wg.Done()
		st, err := svc.GC(context.Background(), GCRequest{Dir: f.Dir})
		stats.deleted, stats.err = st.Deleted, err
		t.Logf("gc: %d roots, %d live nodes, scanned %d, deleted %d; data dir %d → %d bytes", st.Roots, st.Live, st.Scanned, st.Deleted, st.BytesBefore, st.BytesAfter)
	}()
	for i := range 40 { // the writer keeps going during GC
		commit(100 + i)
	}
	wg.Wait()
	if stats.err != nil {
		t.Fatal(stats.err)
	}
	if stats.deleted == 0 {
		t.Error("GC deleted nothing; the dropped branch's nodes should be garbage")
	}
	for i := range 10 {
		commit(200 + i)
	}
	for lsn, want := range states {
		if got := readAll(t, svc, lsn); !maps.Equal(got, want) {
			t.Fatalf("version %s after GC differs from the model (%d rows, want %d)", lsn, len(got), len(want))
		}
	}
	if got := readAll(t, svc, "keep"); !maps.Equal(got, keep) {
		t.Fatal("branch keep changed after GC")
	}
	// A second collection finds nothing more to delete.
	st, err := svc.GC(ctx, GCRequest{})
	if err != nil || st.Deleted != 0 {
		t.Fatalf("second GC: deleted %d, %v", st.Deleted, err)
	}
}

func readAll(t *testing.T, svc *Service, ref string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := svc.Scan(t.Context(), ReadRequest{Table: "public.t", AsOf: ref}, func(ReadHeader) error { return nil }, func(r *Row) error {
		out[*r.Values[0]] = *r.Values[1]
		return nil
	})
	if err != nil {
		t.Fatalf("scan %s: %v", ref, err)
	}
	return out
}

// TestGCRetentionBesideWriterAndReaders expires the older part of a
// history (one tagged version in it kept) and collects garbage three
// times while the writer keeps committing, some of its transactions
// large enough to spill into scratch trees, and readers scan random
// versions: every read that succeeds matches the model, every version
// from the horizon on and the tagged one read back exactly afterwards,
// expired versions are refused, and nodes are deleted.
func TestGCRetentionBesideWriterAndReaders(t *testing.T) {
	f := historytest.NewOpts(t, 8<<20, func(o *mirror.Options) { o.SpillRows = 40 })
	svc := New(f.DB, f.Mirror)
	ctx := t.Context()
	rel, cur := f.KVTable(300)
	var mu sync.Mutex
	states := map[wal.LSN]map[string]string{}
	var order []mirror.Version
	var commits atomic.Int64
	commit := func(i int) {
		defer commits.Add(1)
		n := 1 + i%3
		if i%25 == 0 {
			n = 120 // spills in three chunks
		}
		v := f.Commit(func(tx *historytest.Tx) {
			for j := range n {
				id := strconv.Itoa((i*37 + j*11) % 300)
				val := "v" + strconv.Itoa(i)
				tx.Upsert(rel, []*string{historytest.S(id), historytest.S(val)})
				cur[id] = val
			}
		})
		mu.Lock()
		states[v.EndLSN] = maps.Clone(cur)
		order = append(order, v)
		mu.Unlock()
	}
	for i := range 80 {
		commit(i + 1)
	}
	tagged := order[10]
	if _, err := svc.CreateTag(ctx, "keep", tagged.EndLSN.String()); err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var readers sync.WaitGroup
	var readErrs, readOK atomic.Int64
	readSeed := seed.Or(t, seedFlag, 0)
	for r := range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			rng := rand.New(rand.NewPCG(readSeed+uint64(r), 7))
			for {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				v := order[rng.IntN(len(order))]
				want := states[v.EndLSN]
				mu.Unlock()
				got := map[string]string{}
				err := svc.Scan(ctx, ReadRequest{Table: "public.t", AsOf: v.EndLSN.String()}, func(ReadHeader) error { return nil },
					func(r *Row) error { got[*r.Values[0]] = *r.Values[1]; return nil })
				if err != nil {
					if !errors.Is(err, refs.ErrUnknownRef) && !errors.Is(err, mirror.ErrExpired) {
						t.Errorf("read %s: %v", v.EndLSN, err)
						return
					}
					readErrs.Add(1)
					continue
				}
				if !maps.Equal(got, want) {
					t.Errorf("read %s during GC: %d rows differ from the model", v.EndLSN, len(got))
					return
				}
				readOK.Add(1)
			}
		}()
	}
	var deleted int64
	for round := range 3 {
		mu.Lock()
		cutoff := order[20+20*round].CommitTime
		mu.Unlock()
		done := make(chan error, 1)
		go func() {
			// Between the mark of stored records and the mirror's own
			// roots, let the writer flush several groups and spill.
			pause := func() {
				until := commits.Load() + 40
				for deadline := time.Now().Add(5 * time.Second); commits.Load() < until && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
			}
			st, err := svc.GC(context.Background(), GCRequest{ExpireBefore: cutoff, Dir: f.Dir, afterMark: pause})
			deleted += st.Deleted
			t.Logf("gc %d: expired %d versions, %d groups (horizon %s, %d islands); %d roots, %d live, scanned %d, deleted %d; %d → %d bytes",
				round, st.Expired.Versions, st.Expired.Groups, st.Expired.Horizon, st.Expired.Islands, st.Roots, st.Live, st.Scanned, st.Deleted, st.BytesBefore, st.BytesAfter)
			done <- err
		}()
		for i := 0; ; i++ {
			commit(1000*(round+1) + i)
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			default:
				continue
			}
			break
		}
		for i := range 30 {
			commit(1000*(round+1) + 500 + i)
		}
	}
	close(stop)
	readers.Wait()
	if deleted == 0 {
		t.Error("GC deleted nothing although versions expired")
	}
	t.Logf("reads during GC: %d matched the model, %d refused as expired", readOK.Load(), readErrs.Load())

	horizon, _ := f.Mirror.Horizon()
	if horizon == 0 {
		t.Fatal("no horizon after expiry")
	}
	expired := 0
	for _, v := range order {
		var got map[string]string
		err := svc.Scan(ctx, ReadRequest{Table: "public.t", AsOf: v.EndLSN.String()}, func(ReadHeader) error { return nil },
			func(r *Row) error {
				if got == nil {
					got = map[string]string{}
				}
				got[*r.Values[0]] = *r.Values[1]
				return nil
			})
		switch {
		case v.EndLSN >= horizon || v.EndLSN == tagged.EndLSN:
			if err != nil || !maps.Equal(got, states[v.EndLSN]) {
				t.Fatalf("retained version %s after GC: err %v, %d rows (want %d)", v.EndLSN, err, len(got), len(states[v.EndLSN]))
			}
		case err == nil:
			// Kept in the tag's island: must still be exact.
			if !maps.Equal(got, states[v.EndLSN]) {
				t.Fatalf("island version %s after GC differs from the model", v.EndLSN)
			}
		case errors.Is(err, refs.ErrUnknownRef):
			expired++
		default:
			t.Fatalf("expired version %s: %v", v.EndLSN, err)
		}
	}
	if expired == 0 {
		t.Fatal("no version was expired")
	}
	if got := readAll(t, svc, "keep"); !maps.Equal(got, states[tagged.EndLSN]) {
		t.Fatal("tagged version changed after GC")
	}
	// Once the writer's last garbage (superseded spill chunks) is
	// collected, nothing more is at the same cutoff.
	cutoff := order[60].CommitTime
	if _, err := svc.GC(ctx, GCRequest{ExpireBefore: cutoff}); err != nil {
		t.Fatal(err)
	}
	st, err := svc.GC(ctx, GCRequest{ExpireBefore: cutoff})
	if err != nil || st.Deleted != 0 || st.Expired.Versions != 0 {
		t.Fatalf("repeated GC: deleted %d nodes, %d versions, %v", st.Deleted, st.Expired.Versions, err)
	}
}

// TestGCWaitsForEarlierReaders: a read that resolved a version before GC
// expired it keeps reading it whole (no node cache to hide a deleted
// node); GC finishes after the read, and the version is refused then.
func TestGCWaitsForEarlierReaders(t *testing.T) {
	f := historytest.NewOpts(t, -1, nil)
	svc := New(f.DB, f.Mirror)
	ctx := t.Context()
	rel, cur := f.KVTable(2000)
	var order []mirror.Version
	states := map[wal.LSN]map[string]string{}
	for i := range 60 {
		v := f.Commit(func(tx *historytest.Tx) {
			for j := range 50 {
				id := strconv.Itoa((i*397 + j*41) % 2000)
				tx.Upsert(rel, []*string{historytest.S(id), historytest.S("v" + strconv.Itoa(i))})
				cur[id] = "v" + strconv.Itoa(i)
			}
		})
		order = append(order, v)
		states[v.EndLSN] = maps.Clone(cur)
	}
	old := order[3]
	done := f.Mirror.Reading()
	tr, err := f.Mirror.TreeAt(ctx, "public.t", old.EndLSN)
	if err != nil {
		t.Fatal(err)
	}
	gcDone := make(chan error, 1)
	var st refs.GCStats
	go func() {
		var err error
		st, err = svc.GC(context.Background(), GCRequest{ExpireBefore: order[50].CommitTime})
		gcDone <- err
	}()
	select {
	case err := <-gcDone:
		t.Fatalf("GC finished (%v) while a read of an expiring version runs", err)
	case <-time.After(300 * time.Millisecond):
	}
	got := map[string]string{}
	c, err := tr.Scan(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for c.Next() {
		vals, err := rowenc.Decode(c.Value())
		if err != nil {
			t.Fatal(err)
		}
		got[string(vals[0])] = string(vals[1])
	}
	if err := c.Err(); err != nil {
		t.Fatalf("read of a version resolved before GC: %v", err)
	}
	if !maps.Equal(got, states[old.EndLSN]) {
		t.Fatal("read of a version resolved before GC differs from the model")
	}
	done()
	if err := <-gcDone; err != nil {
		t.Fatal(err)
	}
	if st.Deleted == 0 || st.Expired.Versions == 0 {
		t.Fatalf("GC expired %d versions and deleted %d nodes", st.Expired.Versions, st.Deleted)
	}
	if _, err := f.Mirror.TreeAt(ctx, "public.t", old.EndLSN); !errors.Is(err, mirror.ErrExpired) {
		t.Fatalf("expired version after GC: %v", err)
	}
}
