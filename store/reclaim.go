package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// Value-log reclaim without a node sweep. The in-memory HEAD's
// checkpoints write page images and index and key-store images into
// Badger's value log and delete the previous generation's; nodes of
// superseded trees kept by history.retain are live, and a node GC runs
// only when versions expire or many nodes were written. Deleted values
// give their space back only through a value-log GC that sees the
// deletes, and RunValueLogGCOnline does not see them until Badger's own
// compactions reach them (measured: eight generations of 64 MiB written
// and deleted grew the directory 289 MiB → 801 MiB with online GC after
// each, none reclaimed; RunValueLogGC after each kept it at 289–417 MiB).
// At 100M rows each checkpoint writes ≈ 1.7 GiB of index and key-store
// images, so the directory grew by that much per checkpoint while
// nothing expired (bench/results/scale-2026-12-06-s19-gc.md).

// ValueLogBytes is the size of the value-log files on disk (0 for an
// in-memory DB), read from the directory, not from Badger's size
// estimate (refreshed once a minute).
func (db *DB) ValueLogBytes() int64 {
	if db.opts.InMemory {
		return 0
	}
	ents, err := os.ReadDir(db.opts.Dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".vlog") {
			continue
		}
		if fi, err := os.Stat(filepath.Join(db.opts.Dir, e.Name())); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// ReclaimDue reports whether the value log grew enough since last (its
// size after the previous reclaim) for a reclaim to be worth its stall:
// by a quarter, and by at least two value-log files (a value-log GC
// rewrites whole files, and the file being written is never one).
func (db *DB) ReclaimDue(last int64) bool {
	if db.opts.InMemory {
		return false
	}
	now := db.ValueLogBytes()
	return now-last >= max(last/4, 2*db.opts.ValueLogFileSize)
}

// ReclaimValueLog flushes and compacts the LSM so every delete counts,
// then rewrites the value-log files at least half garbage
// (RunValueLogGC). Writes are refused for the flush (tens of
// milliseconds; writers retry on badger.ErrBlockedWrites, RetryBlocked).
// It returns the value log's size after, the next ReclaimDue's last.
func (db *DB) ReclaimValueLog(ctx context.Context) (rewrites int, after int64, err error) {
	rewrites, err = db.RunValueLogGC(ctx, 0.5)
	return rewrites, db.ValueLogBytes(), err
}
