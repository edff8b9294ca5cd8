//go:build !race

package history

// TestAutoGCReclaimsCheckpointGenerations runs without the race
// detector only (CI runs it plain beside heap's TestFreezeAllocs): its
// reclaims rewrite value-log files while the test writes, and Badger
// (v4.9.6) reads a memtable's maxVersion in DB.MaxVersion (value-log
// rewrite, under db.lock) while its write goroutine sets it in
// memTable.Put without that lock — a race inside Badger the detector
// reports (CI run, session 19), not one of sidecar's. The daemon's
// reclaims do not overlap its checkpoints (AutoGCOptions.Busy) but may
// overlap applies: the read is of one aligned word, used as the floor of
// the versions the rewrite protects.

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"log/slog"
	"maps"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/store"
)

// TestAutoGCReclaimsCheckpointGenerations: with every version retained
// (nothing expires, no node is garbage) the in-memory HEAD's checkpoints
// still write a new generation of images and delete the previous one,
// every few minutes (heap page images, the radix index and key store:
// ≈ 1.7 GiB a checkpoint at 100M rows). Those deletes must give their
// value-log space back: the data directory stays within a bound of the
// live generation, not one generation per checkpoint (before
// Service.reclaim it grew by each: 12 generations of 4 MiB, 48 MiB of
// value log, none returned). Every version committed reads back as the
// model recorded it (AS OF), and the live generation is whole.
func TestAutoGCReclaimsCheckpointGenerations(t *testing.T) {
	const (
		vlogFile = 1 << 20
		chunk    = 256 << 10
		chunks   = 16 // 4 MiB a generation
		gens     = 12
	)
	f := historytest.NewStoreOpts(t, func(o *store.Options) { o.ValueLogFileSize = vlogFile })
	svc := New(f.DB, f.Mirror)
	rel, cur := f.KVTable(300)
	versions := map[string]map[string]string{}
	for i := range 20 { // history kept by the retention (Retain 0 keeps every version)
		id := strconv.Itoa(i * 13 % 300)
		val := "u" + strconv.Itoa(i)
		v := f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{historytest.S(id), historytest.S(val)}) })
		cur[id] = val
		versions[v.EndLSN.String()] = maps.Clone(cur)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	logs := &daemontest.Buffer{}
	wg.Go(func() {
		svc.AutoGC(ctx, AutoGCOptions{Interval: 20 * time.Millisecond, Dir: f.Dir, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	})
	defer func() { cancel(); wg.Wait() }()

	bdb := f.DB.Badger()
	key := func(gen uint64, i int) []byte {
		k := binary.BigEndian.AppendUint64([]byte{store.PrefixIndex, 'c'}, gen)
		return binary.BigEndian.AppendUint32(k, uint32(i))
	}
	want := map[int][]byte{}
	write := func(fn func(wb *badger.WriteBatch) error) {
		t.Helper()
		if err := store.RetryBlocked(ctx, func() error {
			wb := bdb.NewWriteBatch()
			defer wb.Cancel()
			if err := fn(wb); err != nil {
				return err
			}
			return wb.Flush()
		}); err != nil {
			t.Fatal(err)
		}
	}
	for gen := uint64(1); gen <= gens; gen++ {
		// A checkpoint: the new generation, then the previous one dropped
		// (head.writeCut, sweepChunks).
		for i := range chunks {
			v := make([]byte, chunk)
			rand.Read(v)
			want[i] = v
		}
		write(func(wb *badger.WriteBatch) error {
			for i := range chunks {
				if err := wb.Set(key(gen, i), want[i]); err != nil {
					return err
				}
			}
			return nil
		})
		if gen > 1 {
			write(func(wb *badger.WriteBatch) error {
				for i := range chunks {
					if err := wb.Delete(key(gen-1, i)); err != nil {
						return err
					}
				}
				return nil
			})
		}
	}
	// Live: one generation (4 MiB) and a few KiB of nodes; bound: that,
	// the file being written, and two generations not yet reclaimable.
	bound := int64(chunks*chunk*3 + 2*vlogFile)
	daemontest.Eventually(t, "the value log back within its bound", 60*time.Second, func() bool {
		return f.DB.ValueLogBytes() <= bound
	}, func() string {
		return "value log " + strconv.FormatInt(f.DB.ValueLogBytes(), 10) + " B, bound " + strconv.FormatInt(bound, 10) + "; log:\n" + logs.String()
	})
	cancel()
	wg.Wait()
	// The live generation is whole; every version reads as recorded.
	if err := bdb.View(func(txn *badger.Txn) error {
		for i := range chunks {
			it, err := txn.Get(key(gens, i))
			if err != nil {
				return err
			}
			v, err := it.ValueCopy(nil)
			if err != nil {
				return err
			}
			if string(v) != string(want[i]) {
				t.Errorf("chunk %d of the live generation differs after the reclaim", i)
			}
		}
		return nil
	}); err != nil {
		t.Fatalf("live generation after the reclaim: %v", err)
	}
	for lsn, model := range versions {
		p, err := svc.Resolve(t.Context(), lsn)
		if err != nil {
			t.Fatalf("resolve %s: %v", lsn, err)
		}
		got, err := historytest.ReadKV(t.Context(), f.Mirror, p.LSN())
		if err != nil || !maps.Equal(got, model) {
			t.Fatalf("version %s after the reclaim: %v (equal %v)", lsn, err, maps.Equal(got, model))
		}
	}
	t.Logf("value log %d B (bound %d); log:\n%s", f.DB.ValueLogBytes(), bound, logs.String())
}
