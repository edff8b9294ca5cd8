package remote

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/store"
)

func openDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(store.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// records returns every key under SegmentPrefixes and its value.
func records(t *testing.T, db *store.DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err := db.Badger().View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			if bytes.IndexByte(SegmentPrefixes, k[0]) < 0 {
				continue
			}
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out[string(k)] = string(v)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSegmentsReplayToTheSameRecords: random sets and deletes in rounds,
// a segment after each; applying the segments in order to an empty
// directory gives the source's records after every round (nodes, heap
// and index keys never travel), and a damaged segment is refused.
func TestSegmentsReplayToTheSameRecords(t *testing.T) {
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 0))
	src, dst := openDB(t), openDB(t)
	prefixes := []byte{store.PrefixCatalog, store.PrefixMeta, store.PrefixRef, store.PrefixSpool, store.PrefixNode, store.PrefixHeap, store.PrefixIndex}
	var since uint64
	var segs [][]byte
	for round := range 6 {
		if err := src.Badger().Update(func(txn *badger.Txn) error {
			for range 200 {
				k := []byte{prefixes[rng.IntN(len(prefixes))], byte(rng.IntN(8))}
				k = fmt.Appendf(k, "%d", rng.IntN(50))
				if rng.IntN(4) == 0 {
					if err := txn.Delete(k); err != nil {
						return err
					}
					continue
				}
				if err := txn.Set(k, fmt.Appendf(nil, "r%d-%d", round, rng.Int())); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		seg, until, n, err := readSegment(src.Badger(), since)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 || until <= since {
			t.Fatalf("round %d: %d records, until %d after %d", round, n, until, since)
		}
		since = until
		segs = append(segs, seg)
		if _, err := applySegment(dst.Badger(), seg); err != nil {
			t.Fatal(err)
		}
		if want, got := records(t, src), records(t, dst); !maps.Equal(want, got) {
			t.Fatalf("round %d: restored %d records, source %d", round, len(got), len(want))
		}
	}
	if seg, _, n, err := readSegment(src.Badger(), since); err != nil || seg != nil || n != 0 {
		t.Fatalf("nothing changed: %d records, %v", n, err)
	}
	raw := bytes.Clone(segs[2])
	raw[len(raw)/2] ^= 0x40
	if _, err := applySegment(openDB(t).Badger(), raw); !errors.Is(err, errBadSegment) {
		t.Fatalf("damaged segment: %v, want errBadSegment", err)
	}
}
