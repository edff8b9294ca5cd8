//go:build !race

package history

// TestAutoGCReclaimWaitsWhileBusy runs without the race detector only
// (CI runs it plain beside TestAutoGCReclaimsCheckpointGenerations): its
// 1 MiB value-log files make one write outgrow a file's mapping, and
// Badger (v4.9.6) grows it (logFile.Truncate → MmapFile.Truncate, a
// remap) in its write goroutine without the file's lock that DB.Sync
// holds while it msyncs the mapping — a race inside Badger the detector
// reported (CI, session 20: the mirror writer's Sync beside the
// reclaim's rewrite), not one of sidecar's. With the store's 128 MiB
// files (mapped at 256 MiB) a write would have to exceed 128 MiB to grow
// one; Badger splits batches far below that.

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/store"
)

// TestAutoGCReclaimWaitsWhileBusy: a reclaim refuses Badger's writes
// while it flushes the memtables, and the in-memory HEAD's checkpoint
// does not retry its chunk writes (a 3M-row scale run failed with
// "head checkpoint: write chunks of public.t: … Writes are blocked"); so
// while Busy (head.Model.Checkpointing) reports true no reclaim runs,
// and it runs once Busy is false.
func TestAutoGCReclaimWaitsWhileBusy(t *testing.T) {
	f := historytest.NewStoreOpts(t, func(o *store.Options) { o.ValueLogFileSize = 1 << 20 })
	svc := New(f.DB, f.Mirror)
	f.KVTable(10)
	var busy atomic.Bool
	var asked atomic.Int64
	busy.Store(true)
	logs := &daemontest.Buffer{}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() {
		svc.AutoGC(ctx, AutoGCOptions{Interval: 10 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(logs, nil)),
			Busy: func() bool { asked.Add(1); return busy.Load() }})
	})
	defer func() { cancel(); wg.Wait() }()
	// The generations come after AutoGC took the value log's size.
	bdb := f.DB.Badger()
	for gen := uint64(1); gen <= 8; gen++ {
		if err := store.RetryBlocked(ctx, func() error {
			wb := bdb.NewWriteBatch()
			defer wb.Cancel()
			for i := range 8 {
				v := make([]byte, 256<<10)
				rand.Read(v)
				k := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64([]byte{store.PrefixIndex, 'c'}, gen), uint32(i))
				if err := wb.Set(k, v); err != nil {
					return err
				}
				if gen > 1 {
					if err := wb.Delete(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64([]byte{store.PrefixIndex, 'c'}, gen-1), uint32(i))); err != nil {
						return err
					}
				}
			}
			return wb.Flush()
		}); err != nil {
			t.Fatal(err)
		}
	}
	daemontest.Eventually(t, "AutoGC asking Busy several times", 30*time.Second, func() bool { return asked.Load() >= 5 })
	if strings.Contains(logs.String(), "value log reclaimed") {
		t.Fatalf("a reclaim ran while Busy reported true:\n%s", logs.String())
	}
	busy.Store(false)
	daemontest.Eventually(t, "a reclaim once Busy is false", 30*time.Second, func() bool {
		return strings.Contains(logs.String(), "value log reclaimed")
	}, logs.String)
}
