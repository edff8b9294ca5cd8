package remote

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// RestoreStats says what a restore fetched.
type RestoreStats struct {
	Durable      wal.LSN
	Settled      wal.LSN // the manifest's settled LSN (follow.SettledFile)
	Segments     int
	Records      int
	Packs        int
	Nodes        int
	BytesFetched int64
	Took         time.Duration
}

// ErrNotEmpty is wrapped by a restore into a data directory that already
// holds a mirror.
var ErrNotEmpty = errors.New("data directory already holds a mirror")

// Restore fills db, which must hold no mirror, from the manifest under c
// (Apply from nothing: every pack, one GET each, every node checked
// against its address, then the segments' records in order, then a sync). The
// directory then is the writer's as of the manifest's remote-durable LSN
// (heap and index checkpoints are rebuilt from the trees at start).
func Restore(ctx context.Context, c *Client, db *store.DB) (RestoreStats, error) {
	start := time.Now()
	var st RestoreStats
	holds, err := HoldsMirror(db)
	if err != nil {
		return st, err
	}
	if holds {
		return st, fmt.Errorf("restore from %s: %w (restore into an empty data_dir)", c.loc, ErrNotEmpty)
	}
	m, etag, err := ReadManifest(ctx, c)
	if err != nil {
		return st, fmt.Errorf("restore: %w", err)
	}
	var fs FollowState
	st, err = Apply(ctx, c, db, m, etag, &fs)
	if err != nil {
		return st, fmt.Errorf("restore: %w", err)
	}
	st.Took = time.Since(start)
	return st, nil
}

// HoldsMirror reports whether db holds a mirror (any meta record).
func HoldsMirror(db *store.DB) (bool, error) {
	holds := false
	err := db.Badger().View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{store.PrefixMeta}})
		defer it.Close()
		it.Rewind()
		holds = it.Valid()
		return nil
	})
	return holds, err
}
