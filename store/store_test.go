package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/addr"
)

// testNode stands in for *prolly.Node: it keeps its encoding.
type testNode struct{ data []byte }

type testCodec struct{}

func (testCodec) Decode(data []byte) (*testNode, error) {
	if len(data) == 0 {
		return nil, errors.New("empty node")
	}
	return &testNode{data: data}, nil
}

func (testCodec) Size(n *testNode) int { return len(n.data) + 32 }

func openTest(t testing.TB, opts Options) *DB {
	t.Helper()
	if !opts.InMemory && opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	db, err := Open(opts)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return db
}

// putNodes stores nodes generated from gen and returns their addresses.
func putNodes(t testing.TB, s *NodeStore[*testNode], gen *leafGen, n int) ([]addr.Hash, [][]byte) {
	t.Helper()
	hs := make([]addr.Hash, n)
	datas := make([][]byte, n)
	for i := range n {
		data := gen.leaf()
		hs[i], datas[i] = addr.Of(data), data
		if err := s.Put(context.Background(), hs[i], data, &testNode{data: data}); err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
	}
	return hs, datas
}

// checkNodes reads hs back from Badger (the cache cleared first) in one
// GetMany and fails t, saying when, unless node i holds exactly datas[i].
func checkNodes(t testing.TB, s *NodeStore[*testNode], hs []addr.Hash, datas [][]byte, when string) {
	t.Helper()
	s.ClearCache()
	got, err := s.GetMany(t.Context(), hs)
	if err != nil {
		t.Fatalf("%s: get many: %v", when, err)
	}
	if len(got) != len(hs) {
		t.Fatalf("%s: %d nodes for %d hashes", when, len(got), len(hs))
	}
	for i := range hs {
		if !bytes.Equal(got[i].data, datas[i]) {
			t.Fatalf("%s: node %d differs", when, i)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, c := range []Compression{CompressionNone, CompressionS2, CompressionZstd} {
		for _, text := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/text=%v", c, text), func(t *testing.T) {
				db := openTest(t, Options{Compression: c})
				s := NewNodeStore(db, testCodec{})
				hs, datas := putNodes(t, s, newLeafGen(7, text), 50)
				// An incompressible node takes the raw path whatever the codec.
				random := make([]byte, 3000)
				rng := rand.New(rand.NewPCG(1, 2))
				for i := range random {
					random[i] = byte(rng.Uint32())
				}
				hs = append(hs, addr.Of(random))
				datas = append(datas, random)
				if err := s.Put(t.Context(), hs[len(hs)-1], random, &testNode{data: random}); err != nil {
					t.Fatal(err)
				}
				if err := s.Flush(t.Context()); err != nil {
					t.Fatalf("flush: %v", err)
				}
				s.ClearCache()
				for i, h := range hs {
					n, err := s.Get(t.Context(), h)
					if err != nil {
						t.Fatalf("get %d: %v", i, err)
					}
					if !bytes.Equal(n.data, datas[i]) {
						t.Fatalf("node %d: bytes differ", i)
					}
				}
				st := s.Stats()
				if st.Reads != int64(len(hs)) || st.NodesWritten != int64(len(hs)) {
					t.Fatalf("stats: reads %d written %d, want %d each", st.Reads, st.NodesWritten, len(hs))
				}
				if c != CompressionNone && st.BytesStored >= st.BytesRaw {
					t.Fatalf("%s stored %d bytes for %d raw", c, st.BytesStored, st.BytesRaw)
				}
			})
		}
	}
}

func TestGetBeforeFlush(t *testing.T) {
	db := openTest(t, Options{InMemory: true})
	s := NewNodeStore(db, testCodec{})
	hs, datas := putNodes(t, s, newLeafGen(3, false), 10)
	s.ClearCache() // only the pending map can answer now
	for i, h := range hs {
		n, err := s.Get(t.Context(), h)
		if err != nil {
			t.Fatalf("get %d before flush: %v", i, err)
		}
		if !bytes.Equal(n.data, datas[i]) {
			t.Fatalf("node %d: bytes differ", i)
		}
	}
	st := s.Stats()
	if st.PendingHits != int64(len(hs)) || st.Reads != 0 || st.PendingNodes != int64(len(hs)) {
		t.Fatalf("stats %+v: want %d pending hits and no reads", st, len(hs))
	}
	// Nothing reached Badger yet.
	err := db.Badger().View(func(txn *badger.Txn) error {
		_, err := txn.Get(nodeKey(hs[0]))
		return err
	})
	if !errors.Is(err, badger.ErrKeyNotFound) {
		t.Fatalf("node in badger before flush: %v", err)
	}
}

func TestPersistence(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s := NewNodeStore(db, testCodec{})
	hs, datas := putNodes(t, s, newLeafGen(5, true), 100)
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openTest(t, Options{Dir: dir})
	s = NewNodeStore(db, testCodec{})
	checkNodes(t, s, hs, datas, "after reopen")
}

func TestGetMany(t *testing.T) {
	db := openTest(t, Options{InMemory: true, ReadConcurrency: 3})
	s := NewNodeStore(db, testCodec{})
	gen := newLeafGen(11, false)
	stored, storedData := putNodes(t, s, gen, 200)
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.ClearCache()
	cached, cachedData := putNodes(t, s, gen, 20) // pending and cached
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	pending, pendingData := putNodes(t, s, gen, 20)

	want := map[addr.Hash][]byte{}
	var all []addr.Hash
	for _, set := range []struct {
		hs []addr.Hash
		ds [][]byte
	}{{stored, storedData}, {cached, cachedData}, {pending, pendingData}} {
		for i, h := range set.hs {
			want[h] = set.ds[i]
			all = append(all, h)
		}
	}
	rng := seedRand(t, 1, 1)
	// Shuffled, with duplicates.
	req := append(append([]addr.Hash(nil), all...), all[:30]...)
	rng.Shuffle(len(req), func(i, j int) { req[i], req[j] = req[j], req[i] })
	got, err := s.GetMany(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(req) {
		t.Fatalf("got %d nodes for %d addresses", len(got), len(req))
	}
	for i, h := range req {
		if !bytes.Equal(got[i].data, want[h]) {
			t.Fatalf("position %d (%s): wrong node", i, h.Short())
		}
	}
	if st := s.Stats(); st.Reads != int64(len(stored)) {
		t.Fatalf("read %d values from badger, want %d (each cold address once)", st.Reads, len(stored))
	}

	missing := addr.Of([]byte("never stored"))
	s.ClearCache()
	_, err = s.GetMany(t.Context(), append(append([]addr.Hash(nil), stored[:50]...), missing))
	if !errors.Is(err, addr.ErrNotFound) {
		t.Fatalf("missing address: got %v, want ErrNotFound", err)
	}
	if !bytes.Contains([]byte(err.Error()), []byte(missing.String())) {
		t.Fatalf("error %q does not name %s", err, missing)
	}
	if _, err := s.Get(t.Context(), missing); !errors.Is(err, addr.ErrNotFound) {
		t.Fatalf("Get missing: got %v, want ErrNotFound", err)
	}
	if got, err := s.GetMany(t.Context(), nil); err != nil || len(got) != 0 {
		t.Fatalf("empty GetMany: %v %v", got, err)
	}
}

func TestCorruptionDetected(t *testing.T) {
	db := openTest(t, Options{})
	s := NewNodeStore(db, testCodec{})
	hs, _ := putNodes(t, s, newLeafGen(13, true), 4)
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	other := newLeafGen(99, true).leaf()
	tamper := map[string]func(val []byte) []byte{
		// A well-formed value of other bytes: only the hash check sees it.
		"other node": func([]byte) []byte { return db.codec.encode(nil, other) },
		"flipped bit": func(val []byte) []byte {
			v := append([]byte(nil), val...)
			v[len(v)/2] ^= 0x10
			return v
		},
		"unknown tag": func(val []byte) []byte { return append([]byte{0x7f}, val[1:]...) },
		"truncated":   func(val []byte) []byte { return val[:len(val)/2] },
	}
	i := 0
	for name, f := range tamper {
		h := hs[i]
		i++
		t.Run(name, func(t *testing.T) {
			err := db.Badger().Update(func(txn *badger.Txn) error {
				item, err := txn.Get(nodeKey(h))
				if err != nil {
					return err
				}
				val, err := item.ValueCopy(nil)
				if err != nil {
					return err
				}
				return txn.Set(nodeKey(h), f(val))
			})
			if err != nil {
				t.Fatal(err)
			}
			s.ClearCache()
			before := s.Stats().Corrupt
			n, err := s.Get(t.Context(), h)
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Hash != h {
				t.Fatalf("Get returned %v, %v; want *CorruptError for %s", n, err, h)
			}
			if !errors.Is(err, ErrCorrupt) || n != nil {
				t.Fatalf("errors.Is(ErrCorrupt) false or node returned: %v", err)
			}
			if !bytes.Contains([]byte(err.Error()), []byte(h.String())) {
				t.Fatalf("error %q does not name the address", err)
			}
			if _, err := s.GetMany(t.Context(), hs); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("GetMany: %v, want corruption", err)
			}
			if got := s.Stats().Corrupt - before; got < 2 {
				t.Fatalf("Stats.Corrupt grew by %d, want 2", got)
			}
		})
	}
}

func TestPutHashMismatchFailsFlush(t *testing.T) {
	db := openTest(t, Options{InMemory: true, VerifyPuts: true})
	s := NewNodeStore(db, testCodec{})
	data := []byte("node bytes")
	wrong := addr.Of([]byte("something else"))
	if err := s.Put(t.Context(), wrong, data, &testNode{data: data}); err != nil {
		t.Fatal(err)
	}
	err := s.Flush(t.Context())
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(wrong.String())) {
		t.Fatalf("flush: %v; want an error naming %s", err, wrong)
	}
	if err := s.Put(t.Context(), addr.Of(data), data, &testNode{data: data}); err == nil {
		t.Fatal("Put after a failed write succeeded; the error must be sticky")
	}
	_ = db.Badger().View(func(txn *badger.Txn) error {
		if _, err := txn.Get(nodeKey(wrong)); !errors.Is(err, badger.ErrKeyNotFound) {
			t.Fatalf("mismatched node was stored: %v", err)
		}
		return nil
	})
}

func TestBackgroundWrites(t *testing.T) {
	db := openTest(t, Options{InMemory: true, PendingBytes: 64 << 10})
	s := NewNodeStore(db, testCodec{})
	hs, datas := putNodes(t, s, newLeafGen(17, false), 300) // ~1.1 MiB: many batches
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Batches < 10 || st.NodesWritten != 300 || st.PendingNodes != 0 {
		t.Fatalf("stats %+v: want ≥10 batches, 300 nodes written, none pending", st)
	}
	checkNodes(t, s, hs, datas, "after the background writes")
}

func TestLockedDir(t *testing.T) {
	dir := t.TempDir()
	openTest(t, Options{Dir: dir})
	_, err := Open(Options{Dir: dir, ReaderWait: 200 * time.Millisecond})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second open: %v, want ErrLocked", err)
	}
	if !bytes.Contains([]byte(err.Error()), []byte(dir)) {
		t.Fatalf("error %q does not name the directory", err)
	}
}

func TestConcurrentGetPut(t *testing.T) {
	db := openTest(t, Options{InMemory: true, PendingBytes: 128 << 10, CacheBytes: 1 << 20})
	s := NewNodeStore(db, testCodec{})
	const writers, readers, perWriter = 2, 4, 150
	var mu sync.Mutex
	var known []addr.Hash
	data := map[addr.Hash][]byte{}
	var wg sync.WaitGroup
	errs := make(chan error, writers+readers)
	stop := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			gen := newLeafGen(uint64(100+w), w == 0)
			for i := range perWriter {
				d := gen.leaf()
				h := addr.Of(d)
				if err := s.Put(t.Context(), h, d, &testNode{data: d}); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				known = append(known, h)
				data[h] = d
				mu.Unlock()
				if i%40 == 0 {
					if err := s.Flush(t.Context()); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	var rwg sync.WaitGroup
	for r := range readers {
		rwg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(r), 0))
			for {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				if len(known) == 0 {
					mu.Unlock()
					continue
				}
				req := make([]addr.Hash, 1+rng.IntN(8))
				for i := range req {
					req[i] = known[rng.IntN(len(known))]
				}
				mu.Unlock()
				if r%2 == 0 {
					s.ClearCache()
				}
				got, err := s.GetMany(t.Context(), req)
				if err != nil {
					errs <- err
					return
				}
				n, err := s.Get(t.Context(), req[0])
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				for i, h := range req {
					if !bytes.Equal(got[i].data, data[h]) {
						errs <- fmt.Errorf("wrong node for %s", h.Short())
					}
				}
				if !bytes.Equal(n.data, data[req[0]]) {
					errs <- fmt.Errorf("Get: wrong node for %s", req[0].Short())
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(stop)
	rwg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.NodesWritten != writers*perWriter || st.CacheBytes > st.CacheCapacity {
		t.Fatalf("stats %+v", st)
	}
}

// captureHandler records the levels and messages it is given.
type captureHandler struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.recs = append(h.recs, r)
	h.mu.Unlock()
	return nil
}
func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *captureHandler) WithGroup(string) slog.Handler      { return h }

func TestBadgerLogger(t *testing.T) {
	h := &captureHandler{}
	l := badgerLogger{l: slog.New(h)}
	l.Errorf("e %d\n", 1)
	l.Warningf("w %d", 2)
	l.Infof("i %d", 3)
	l.Debugf("d %d", 4)
	want := []struct {
		level slog.Level
		msg   string
	}{{slog.LevelError, "e 1"}, {slog.LevelWarn, "w 2"}, {slog.LevelDebug, "i 3"}, {LevelBadgerDebug, "d 4"}}
	if len(h.recs) != len(want) {
		t.Fatalf("got %d records, want %d", len(h.recs), len(want))
	}
	for i, w := range want {
		if h.recs[i].Level != w.level || h.recs[i].Message != w.msg {
			t.Errorf("record %d: %v %q, want %v %q", i, h.recs[i].Level, h.recs[i].Message, w.level, w.msg)
		}
	}
	// A real Open logs through the adapter, and nothing at Info or above.
	h2 := &captureHandler{}
	openTest(t, Options{Logger: slog.New(h2)})
	h2.mu.Lock()
	defer h2.mu.Unlock()
	if len(h2.recs) == 0 {
		t.Fatal("badger logged nothing through slog on open")
	}
	for _, r := range h2.recs {
		if r.Level >= slog.LevelInfo {
			t.Errorf("badger chatter at %v: %q", r.Level, r.Message)
		}
	}
}

// TestRunValueLogGC deletes most nodes and checks that GC, run at once (so
// it must itself push the deletes through the LSM), removes value-log files,
// shrinks the directory and keeps every surviving node readable.
func TestRunValueLogGC(t *testing.T) {
	dir := t.TempDir()
	// Tiny memtables and vlog files so that a few MiB exercise compaction.
	db := openTest(t, Options{Dir: dir, MemTableSize: 128 << 10, ValueLogFileSize: 4 << 20})
	s := NewNodeStore(db, testCodec{})
	gen := newLeafGen(21, false)
	hs, datas := putNodes(t, s, gen, 3000) // ~8 MiB stored: several vlog files
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	wb := db.Badger().NewWriteBatch()
	for _, h := range hs[:2900] {
		if err := wb.Delete(nodeKey(h)); err != nil {
			t.Fatal(err)
		}
	}
	if err := wb.Flush(); err != nil {
		t.Fatal(err)
	}
	before := dirBytes(dir)
	n, err := db.RunValueLogGC(t.Context(), 0.5)
	if err != nil {
		t.Fatalf("value log gc: %v", err)
	}
	after := dirBytes(dir)
	t.Logf("rewrote %d value-log files; %d -> %d bytes on disk", n, before, after)
	if n == 0 || after >= before {
		t.Fatalf("gc rewrote %d files, disk %d -> %d bytes: nothing reclaimed", n, before, after)
	}
	s.ClearCache()
	got, err := s.GetMany(t.Context(), hs[2900:])
	if err != nil {
		t.Fatalf("survivors after gc: %v", err)
	}
	for i, n := range got {
		if !bytes.Equal(n.data, datas[2900+i]) {
			t.Fatalf("survivor %d differs after gc", i)
		}
	}
	if _, err := s.Get(t.Context(), hs[0]); !errors.Is(err, addr.ErrNotFound) {
		t.Fatalf("deleted node: %v, want ErrNotFound", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := db.RunValueLogGC(ctx, 0.5); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled gc: %v", err)
	}
}

// TestValueLogGCDuringWrites runs GC (which pauses Badger's writes) in a
// loop while a NodeStore writes batches: the writes must wait, not fail.
func TestValueLogGCDuringWrites(t *testing.T) {
	db := openTest(t, Options{MemTableSize: 128 << 10, ValueLogFileSize: 2 << 20, PendingBytes: 32 << 10})
	s := NewNodeStore(db, testCodec{})
	stop := make(chan struct{})
	first := make(chan struct{})
	gcErr := make(chan error, 1)
	var gcs int
	go func() {
		defer close(gcErr)
		for {
			if _, err := db.RunValueLogGC(t.Context(), 0.5); err != nil {
				gcErr <- err
				return
			}
			if gcs++; gcs == 1 {
				close(first)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	<-first
	gen := newLeafGen(23, false)
	var hs []addr.Hash
	var datas [][]byte
	for range 10 {
		h, d := putNodes(t, s, gen, 60)
		hs, datas = append(hs, h...), append(datas, d...)
		if err := s.Flush(t.Context()); err != nil {
			t.Fatalf("flush during gc: %v", err)
		}
	}
	close(stop)
	if err := <-gcErr; err != nil {
		t.Fatalf("gc: %v", err)
	}
	t.Logf("%d GC runs during the writes", gcs)
	if gcs < 2 {
		t.Fatalf("only %d GC runs: the writes did not overlap GC", gcs)
	}
	checkNodes(t, s, hs, datas, "after GC")
}

// TestFlushCancelledKeepsNodes checks that a Flush whose context is already
// cancelled neither loses the buffered nodes nor poisons the store.
func TestFlushCancelledKeepsNodes(t *testing.T) {
	db := openTest(t, Options{InMemory: true})
	s := NewNodeStore(db, testCodec{})
	hs, datas := putNodes(t, s, newLeafGen(61, false), 20)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Flush(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled flush: %v", err)
	}
	if st := s.Stats(); st.PendingNodes != 20 || st.NodesWritten != 0 {
		t.Fatalf("after cancelled flush: %+v; want 20 nodes still pending", st)
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatalf("flush after a cancelled one: %v", err)
	}
	checkNodes(t, s, hs, datas, "after a cancelled flush")
}

func TestHas(t *testing.T) {
	db := openTest(t, Options{InMemory: true})
	s := NewNodeStore(db, testCodec{})
	hs, _ := putNodes(t, s, newLeafGen(71, false), 3)
	missing := addr.Of([]byte("absent"))
	check := func(when string) {
		t.Helper()
		for _, h := range hs {
			if ok, err := s.Has(t.Context(), h); !ok || err != nil {
				t.Fatalf("%s: Has(stored) = %v, %v", when, ok, err)
			}
		}
		if ok, err := s.Has(t.Context(), missing); ok || err != nil {
			t.Fatalf("%s: Has(missing) = %v, %v", when, ok, err)
		}
	}
	s.ClearCache()
	check("buffered")
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.ClearCache()
	check("flushed, cache cold")
	if st := s.Stats(); st.Reads != 0 {
		t.Fatalf("Has read %d values; it must only look keys up", st.Reads)
	}
}

// A Put under a wrong address is trusted by default, but the first read of
// it from Badger reports corruption instead of handing the bytes out.
func TestTrustedPutWrongAddressCaughtOnRead(t *testing.T) {
	db := openTest(t, Options{InMemory: true})
	s := NewNodeStore(db, testCodec{})
	data := []byte("node bytes")
	wrong := addr.Of([]byte("something else"))
	if err := s.Put(t.Context(), wrong, data, &testNode{data: data}); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatalf("flush: %v", err)
	}
	s.ClearCache()
	_, err := s.Get(t.Context(), wrong)
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Hash != wrong {
		t.Fatalf("Get: %v, want a *CorruptError naming %s", err, wrong)
	}
	if _, err := s.GetMany(t.Context(), []addr.Hash{wrong}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("GetMany: %v, want corruption", err)
	}
}

// PutUncached nodes are readable at once and after Flush, but only the Put
// ones occupy the cache: after Flush an uncached node is read from Badger.
func TestPutUncached(t *testing.T) {
	db := openTest(t, Options{InMemory: true})
	s := NewNodeStore(db, testCodec{})
	gen := newLeafGen(5, false)
	cold, hot := gen.leaf(), gen.leaf()
	hc, hh := addr.Of(cold), addr.Of(hot)
	if err := s.PutUncached(t.Context(), hc, cold, &testNode{data: cold}); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(t.Context(), hh, hot, &testNode{data: hot}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Get(t.Context(), hc); err != nil || !bytes.Equal(n.data, cold) {
		t.Fatalf("Get of a buffered uncached node: %v", err)
	}
	if got := s.Stats().CacheEntries; got != 1 {
		t.Fatalf("cache holds %d entries after one Put and one PutUncached, want 1", got)
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	reads := s.Stats().Reads
	for _, h := range []addr.Hash{hh, hc} {
		if _, err := s.Get(t.Context(), h); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Stats().Reads - reads; got != 1 {
		t.Fatalf("%d reads from Badger, want 1 (the uncached node only)", got)
	}
}
