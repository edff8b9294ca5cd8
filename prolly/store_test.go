package prolly_test

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/store"
)

// The Badger-backed store must satisfy the engine's interface.
var _ prolly.NodeStore = (*store.NodeStore[*prolly.Node])(nil)

func openBadger(tb testing.TB, dir string) (*store.DB, *store.NodeStore[*prolly.Node]) {
	tb.Helper()
	db, err := store.Open(store.Options{Dir: dir})
	if err != nil {
		tb.Fatal(err)
	}
	return db, store.NewNodeStore[*prolly.Node](db, prolly.NodeCodec{})
}

func key(i int) []byte      { return []byte(fmt.Sprintf("key-%020d", i)) }
func value(i, g int) []byte { return []byte(fmt.Sprintf("value-%09d-%011d", g, i)) }

// TestOnBadger runs build, mutate, diff and check through the real store,
// across a close and reopen.
func TestOnBadger(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	db, ns := openBadger(t, dir)
	e := prolly.NewDefaultEngine(ns)
	b := e.NewBuilder(ctx)
	const n = 50000
	for i := 0; i < n; i++ {
		if err := b.Add(key(2*i), value(i, 0)); err != nil {
			t.Fatal(err)
		}
	}
	base, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	var eds []prolly.Edit
	for i := 0; i < n; i += 97 {
		eds = append(eds, prolly.Edit{Key: key(2 * i), Value: value(i, 1)}, prolly.Edit{Key: key(2*i + 1), Value: value(i, 1)})
	}
	next, err := e.Mutate(ctx, base, eds)
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, ns = openBadger(t, dir)
	defer db.Close()
	e = prolly.NewDefaultEngine(ns)
	if err := e.Check(ctx, next); err != nil {
		t.Fatal(err)
	}
	d, err := e.Diff(ctx, base, next, prolly.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	added, changed := 0, 0
	for d.Next() {
		switch d.Entry().Kind {
		case prolly.Added:
			added++
		case prolly.Changed:
			changed++
		default:
			t.Fatalf("unexpected %v %s", d.Entry().Kind, d.Entry().Key)
		}
	}
	if d.Err() != nil || added != len(eds)/2 || changed != len(eds)/2 {
		t.Fatalf("diff: %d added, %d changed, %v; want %d each", added, changed, d.Err(), len(eds)/2)
	}
}

// BenchmarkBuildBadger builds -benchrows rows (default 1M) of the seed
// shape into a Badger store on disk, flush included.
func BenchmarkBuildBadger(b *testing.B) {
	n := 1_000_000
	if f := flag.Lookup("benchrows"); f != nil && f.Value.String() != "" {
		n, _ = strconv.Atoi(f.Value.String())
	}
	for range b.N {
		b.StopTimer()
		db, ns := openBadger(b, b.TempDir())
		e := prolly.NewDefaultEngine(ns)
		ctx := context.Background()
		runtime.GC()
		b.StartTimer()
		t0 := time.Now()
		bl := e.NewBuilder(ctx)
		k, v := make([]byte, 0, 24), make([]byte, 0, 27)
		for i := 0; i < n; i++ {
			k = fmt.Appendf(k[:0], "key-%020d", 2*i)
			v = fmt.Appendf(v[:0], "value-%09d-%011d", 0, i)
			if err := bl.Add(k, v); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := bl.Finish(); err != nil {
			b.Fatal(err)
		}
		if err := ns.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(t0).Nanoseconds())/float64(n), "ns/row")
		b.StopTimer()
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
