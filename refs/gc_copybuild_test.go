package refs_test

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/wal"
)

// pausingBuilder is a consumer whose copy builds of the tables in pause
// block at their first row until release is closed: the copy's tree build
// stops part-way (its consumer hand-off fills), with nodes already Put.
type pausingBuilder struct {
	pause   map[string]chan struct{} // table → closed when its build paused
	release chan struct{}
}

func (p *pausingBuilder) Durable() mirror.Position                   { return mirror.Position{} }
func (p *pausingBuilder) Apply(context.Context, *mirror.Batch) error { return nil }
func (p *pausingBuilder) BuildCopy(table string, _ *wal.Relation) mirror.CopyBuild {
	if ch, ok := p.pause[table]; ok {
		return &pausingBuild{paused: ch, release: p.release}
	}
	return nil
}

type pausingBuild struct {
	once    sync.Once
	paused  chan struct{}
	release chan struct{}
}

func (b *pausingBuild) Add(key, val []byte) {
	b.once.Do(func() {
		close(b.paused)
		<-b.release
	})
}
func (b *pausingBuild) Discard() {}

// TestGCDoesNotWaitForACopyBuild: a GC that starts while a table's copy
// is building its tree (60k rows, paused part-way with nodes stored)
// returns at once, deferred with mirror.ErrCopyBuilding, instead of
// waiting for the build under a write lock (at 100M rows the first
// automatic GC waited 28 min; tags, branches and other tables' builds
// waited behind it). A copy that begins building during a GC's mark is
// not waited for either, and the GC's sweep keeps its nodes. Once the
// builds end and land, a GC collects, and every table and retained
// version reads back as the model recorded it.
//
// Before mirror/gcbuild.go both collections blocked until the builds were
// released (the test releases them after 20 s and fails).
func TestGCDoesNotWaitForACopyBuild(t *testing.T) {
	f := historytest.New(t)
	ctx := context.Background()
	m := f.Mirror
	rel, cur := f.KVTable(50)
	states := map[wal.LSN]map[string]string{}
	for i := range 10 {
		v := f.Commit(func(tx *historytest.Tx) {
			id := strconv.Itoa(i * 7 % 50)
			tx.Upsert(rel, []*string{historytest.S(id), historytest.S("c" + strconv.Itoa(i))})
			cur[id] = "c" + strconv.Itoa(i)
		})
		states[v.EndLSN] = maps.Clone(cur)
	}
	pb := &pausingBuilder{pause: map[string]chan struct{}{"public.b": make(chan struct{}), "public.c": make(chan struct{})},
		release: make(chan struct{})}
	if _, err := m.Subscribe(pb, mirror.SubscribeOptions{}); err != nil {
		t.Fatal(err)
	}
	const rows = 60_000
	relOf := func(oid uint32, name string) *wal.Relation {
		return historytest.Rel(oid, "public", name, 1, [2]string{"id", "int8"}, [2]string{"v", "text"})
	}
	var lsnMu sync.Mutex
	nextLSN := func() wal.LSN {
		lsnMu.Lock()
		defer lsnMu.Unlock()
		f.LSN += 0x10
		return f.LSN
	}
	// copyTable copies rows id → name+id; TableCopied runs in the
	// goroutine, its result on the channel.
	copyTable := func(rel *wal.Relation) chan error {
		done := make(chan error, 1)
		go func() {
			w, err := m.CopyRange(ctx, rel, wal.BlockRange{Index: 0, Of: 1})
			if err != nil {
				done <- err
				return
			}
			for id := range rows {
				k := strconv.Itoa(id)
				if err := w.WriteRow(historytest.Values([]*string{&k, historytest.S(rel.Name + k)})); err != nil {
					done <- err
					return
				}
			}
			if err := w.Close(); err != nil {
				done <- err
				return
			}
			done <- m.TableCopied(ctx, rel, nextLSN())
		}()
		return done
	}
	released := false
	release := func() {
		if !released {
			released = true
			close(pb.release)
		}
	}
	defer release()
	// gc runs one collection; one still running after 20 s waited for a
	// build: the builds are released so it can end, and the test fails.
	c := refs.NewCatalog(f.DB)
	gc := func(what string, afterMark func()) (refs.GCStats, error) {
		t.Helper()
		type res struct {
			st  refs.GCStats
			err error
		}
		ch := make(chan res, 1)
		go func() {
			st, err := refs.CollectGarbage(ctx, refs.GCOptions{DB: f.DB, Mirror: m, Catalog: c, AfterMark: afterMark})
			ch <- res{st, err}
		}()
		select {
		case r := <-ch:
			return r.st, r.err
		case <-time.After(20 * time.Second):
			release()
			r := <-ch
			t.Fatalf("%s: the collection waited for a copy's build (returned %v only once the builds were released)", what, r.err)
			return r.st, r.err
		}
	}

	relB := relOf(2, "b")
	doneB := copyTable(relB)
	<-pb.pause["public.b"]
	if _, err := gc("GC while b builds", nil); !errors.Is(err, mirror.ErrCopyBuilding) {
		t.Fatalf("GC while b's copy builds: %v, want mirror.ErrCopyBuilding", err)
	}

	// b is still building, so that GC defers too; c begins during the
	// mark of one that starts after b's build ended.
	release()
	if err := <-doneB; err != nil {
		t.Fatalf("copy of b: %v", err)
	}
	pb.release = make(chan struct{})
	released = false
	relC := relOf(3, "c")
	var doneC chan error
	st, err := gc("GC while c builds", func() {
		doneC = copyTable(relC)
		<-pb.pause["public.c"]
	})
	if err != nil {
		t.Fatalf("GC while c's copy (begun during its mark) builds: %v", err)
	}
	t.Logf("GC beside c's build: %d roots, %d live, %d deleted", st.Roots, st.Live, st.Deleted)
	release()
	if err := <-doneC; err != nil {
		t.Fatalf("copy of c: %v", err)
	}
	top := nextLSN()
	if err := m.StreamReached(ctx, top); err != nil {
		t.Fatal(err)
	}
	if _, err := gc("GC after the copies", nil); err != nil {
		t.Fatalf("GC after the copies landed: %v", err)
	}
	// Everything reads back: b and c whole, t at every version.
	for _, name := range []string{"public.b", "public.c"} {
		got, err := historytest.ReadTable(ctx, m, name, top)
		if err != nil {
			t.Fatalf("read %s after the collections: %v", name, err)
		}
		if len(got) != rows {
			t.Fatalf("%s: %d rows after the collections, want %d", name, len(got), rows)
		}
		for id := range rows {
			k := strconv.Itoa(id)
			if want := name[len("public."):] + k; got[k] != want {
				t.Fatalf("%s row %s: %q, want %q", name, k, got[k], want)
			}
		}
	}
	for lsn, want := range states {
		got, err := historytest.ReadTable(ctx, m, "public.t", lsn)
		if err != nil || !maps.Equal(got, want) {
			t.Fatalf("t at %s after the collections: %v (equal %v)", lsn, err, maps.Equal(got, want))
		}
	}
}
