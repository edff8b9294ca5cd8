package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/store"
)

type rawCodec struct{}

func (rawCodec) Decode(b []byte) ([]byte, error) { return b, nil }
func (rawCodec) Size(b []byte) int               { return len(b) }

// TestSweepKeepsNodePutAfterBeginAndWrittenDuringSweep: a node Put after the sweep version
// (asOf) but before Sweep starts, and written to Badger while Sweep
// iterates, survives (review finding: it was deleted when Sweep only
// recorded Puts made after it began).
func TestSweepKeepsNodePutAfterBeginAndWrittenDuringSweep(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(store.Options{Dir: t.TempDir(), CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ns := store.NewNodeStore[[]byte](db, rawCodec{})
	x := []byte("node x: a leaf of an expired version")
	hx := addr.Of(x)
	if err := ns.Put(ctx, hx, x, x); err != nil {
		t.Fatal(err)
	}
	if err := ns.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// GC: begin recording, flush, take the sweep version, mark (x is
	// garbage now).
	if err := ns.BeginSweep(); err != nil {
		t.Fatal(err)
	}
	asOf := db.Version()
	// A tree built after asOf (a group flush or spill chunk started after
	// RootWatch.Roots) re-creates x: buffered, not written yet.
	if err := ns.Put(ctx, hx, x, x); err != nil {
		t.Fatal(err)
	}
	flushed := false
	st, err := ns.Sweep(ctx, asOf, func(h addr.Hash) bool {
		if !flushed {
			// The writer flushes its nodes while the sweep iterates
			// (applyGroup's ns.Flush, a spilled commit's Flush, a full
			// pending batch).
			flushed = true
			if err := ns.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sweep: %+v", st)
	if _, err := ns.Get(ctx, hx); err != nil {
		if errors.Is(err, addr.ErrNotFound) {
			t.Fatalf("node Put after asOf and written during the sweep was deleted: %v", err)
		}
		t.Fatal(err)
	}
}
