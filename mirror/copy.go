package mirror

import (
	"bufio"
	"bytes"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/rowenc"
	"golang.org/x/sync/errgroup"
)

// Copy memory: a range encodes its rows into arena chunks of
// copyArenaChunk bytes (one allocation per chunk, not two per row), and
// cuts them into sorted runs of at most Options.CopyRunBytes. A run stays
// in memory while the runs of every copy in progress total at most
// copyMemRuns × CopyRunBytes (256 MiB by default); beyond that, runs go to
// files under TempDir. So a table that fits is never written to disk
// and read back: it is sorted and merged in memory.
const (
	copyArenaChunk = 1 << 20
	copyMemRuns    = 16
	// kvOverhead is what one buffered row costs beyond its bytes: its
	// kv header in the range's slice.
	kvOverhead = 48
)

// tableCopy collects the sorted runs of one table's copy. Ranges arrive
// concurrently and in any order; each closed range adds its runs.
type tableCopy struct {
	rel *replication.Relation
	t   *table // key codec for rel
	dir string // run files

	mu    sync.Mutex
	runs  []*run
	files int
	rows  int64
	mem   int64 // bytes of the runs kept in memory (under Mirror.copyMu)
}

// run is a sorted sequence of rows, in memory or in a file, with its
// first and last keys (for the merge's disjointness check).
type run struct {
	mem         []kv
	path        string
	first, last []byte
	rows        int
	memBytes    int64 // counted in tableCopy.mem while in memory
}

type kv struct{ key, val []byte }

// CopyRange implements replication.CopySink: rows are encoded (key from
// the identity columns, vrow1 value), buffered, and cut into sorted runs
// of at most CopyRunBytes; runs stay in memory within the copy memory
// budget (see copyMemRuns) and go to files beyond it, so memory stays
// bounded by the budget plus workers × CopyRunBytes.
func (m *Mirror) CopyRange(ctx context.Context, rel *replication.Relation, r replication.BlockRange) (replication.RowWriter, error) {
	name := rel.QualifiedName()
	m.copyMu.Lock()
	defer m.copyMu.Unlock()
	tc := m.copies[name]
	if tc == nil {
		t, err := newTable(tableRecord{Name: name, Rel: rel})
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w", name, err)
		}
		dir, err := os.MkdirTemp(m.opts.TempDir, "sidecar-copy-")
		if err != nil {
			return nil, fmt.Errorf("copy %s: run directory: %w", name, err)
		}
		tc = &tableCopy{rel: rel, t: t, dir: dir}
		m.copies[name] = tc
	} else if !tc.rel.Equal(rel) {
		return nil, fmt.Errorf("copy %s range %d/%d: relation differs from the one its other ranges were copied with", name, r.Index+1, r.Of)
	}
	return &rangeWriter{m: m, tc: tc, texts: make([][]byte, len(tc.t.keyCols))}, nil
}

// reserveCopyMem reports whether a run of n bytes may stay in memory, and
// if so counts it against tc. A table leaves m.copies when its build
// starts, so its runs stop counting then, although they stay in memory
// until the build ends: during a build, memory can reach the budget plus
// that table's runs.
func (m *Mirror) reserveCopyMem(tc *tableCopy, n int64) bool {
	m.copyMu.Lock()
	defer m.copyMu.Unlock()
	var used int64
	for _, c := range m.copies {
		used += c.mem
	}
	if used+n > copyMemRuns*m.opts.CopyRunBytes {
		return false
	}
	tc.mem += n
	return true
}

// rangeWriter receives one block range.
type rangeWriter struct {
	m       *Mirror
	tc      *tableCopy
	buf     []kv
	bytes   int64
	runs    []*run
	rows    int64
	arena   []byte   // current chunk: rows are encoded at its end
	scratch []byte   // one row's value and key, before they go to arena
	texts   [][]byte // one row's key column texts
	// unsorted: a row of the buffer has a key not above the one before
	// (rows arrive in heap order; a serial key keeps them sorted).
	unsorted bool
}

// WriteRow encodes the row's vrow1 value and key (the same bytes as the
// stream's encodeRow and rowKey: TestCopyRootMatchesReference checks it)
// into the range's arena.
func (w *rangeWriter) WriteRow(values []replication.Value) error {
	t := w.tc.t
	row := w.scratch[:0]
	for i, v := range values {
		switch v.Kind {
		case replication.Null:
			row = rowenc.AppendNull(row)
		case replication.Text:
			row = rowenc.AppendValue(row, v.Bytes)
		default:
			return fmt.Errorf("copy %s: column %d has value kind %d", t.rec.Name, i, v.Kind)
		}
	}
	n := len(row)
	if !t.full {
		if t.codec == nil {
			return fmt.Errorf("copy %s: no key codec", t.rec.Name)
		}
		for i, k := range t.keyCols {
			v := values[k]
			if v.Kind != replication.Text {
				return fmt.Errorf("copy %s: key column %s is %s", t.rec.Name, t.rec.Rel.Columns[k].Name, v)
			}
			w.texts[i] = v.Bytes
		}
		var err error
		if row, err = t.codec.Append(row, w.texts); err != nil {
			return fmt.Errorf("copy %s: encode key: %w", t.rec.Name, err)
		}
	}
	w.scratch = row
	b := w.alloc(len(row))
	copy(b, row)
	r := kv{key: b[n:], val: b[:n:n]}
	if t.full {
		// Keyed by the whole row (rowKey): key and value are one slice.
		r.key = r.val
	}
	if len(w.buf) > 0 && !w.unsorted && bytes.Compare(w.buf[len(w.buf)-1].key, r.key) >= 0 {
		w.unsorted = true
	}
	if w.buf == nil {
		// Sized for a full run of rows like this one: growing the slice
		// by doubling would copy it about twice over.
		w.buf = make([]kv, 0, min(w.m.opts.CopyRunBytes/int64(len(b)+kvOverhead)+1, 1<<20))
	}
	w.buf = append(w.buf, r)
	w.bytes += int64(len(b) + kvOverhead)
	w.rows++
	if w.bytes >= w.m.opts.CopyRunBytes {
		return w.cut()
	}
	return nil
}

// alloc returns n bytes at the end of the arena, starting a new chunk
// when the current one is full. Chunks are never reused: runs kept in
// memory point into them.
func (w *rangeWriter) alloc(n int) []byte {
	l := len(w.arena)
	if cap(w.arena)-l < n {
		w.arena = make([]byte, 0, max(copyArenaChunk, n))
		l = 0
	}
	w.arena = w.arena[:l+n]
	return w.arena[l : l+n : l+n]
}

// cut sorts the buffer into a run, kept in memory when the copy memory
// budget allows, else written to a file.
func (w *rangeWriter) cut() error {
	if len(w.buf) == 0 {
		return nil
	}
	if w.unsorted {
		slices.SortFunc(w.buf, func(a, b kv) int { return bytes.Compare(a.key, b.key) })
	}
	w.unsorted = false
	first, last := w.buf[0].key, w.buf[len(w.buf)-1].key
	if w.m.reserveCopyMem(w.tc, w.bytes) {
		w.runs = append(w.runs, &run{mem: w.buf, first: first, last: last, rows: len(w.buf), memBytes: w.bytes})
		// The run owns the arena chunks its rows are in.
		w.buf, w.bytes, w.arena = nil, 0, nil
		return nil
	}
	w.tc.mu.Lock()
	w.tc.files++
	path := fmt.Sprintf("%s/run-%06d", w.tc.dir, w.tc.files)
	w.tc.mu.Unlock()
	if err := writeRun(path, w.buf); err != nil {
		return fmt.Errorf("copy %s: %w", w.tc.t.rec.Name, err)
	}
	w.runs = append(w.runs, &run{path: path, first: slices.Clone(first), last: slices.Clone(last), rows: len(w.buf)})
	// The rows are on disk: the buffer and the arena are free again (the
	// current chunk holds only rows of this run: an in-memory cut starts
	// a fresh one).
	clear(w.buf)
	w.buf, w.bytes = w.buf[:0], 0
	w.arena = w.arena[:0]
	return nil
}

// Close cuts the range's last run.
func (w *rangeWriter) Close() error {
	if err := w.cut(); err != nil {
		return err
	}
	w.tc.mu.Lock()
	w.tc.runs = append(w.tc.runs, w.runs...)
	w.tc.rows += w.rows
	w.tc.mu.Unlock()
	return nil
}

// Abort forgets the range's rows and removes its run files.
func (w *rangeWriter) Abort() {
	var mem int64
	for _, r := range w.runs {
		if r.path != "" {
			os.Remove(r.path)
		}
		mem += r.memBytes
	}
	if mem > 0 {
		w.m.copyMu.Lock()
		w.tc.mem -= mem
		w.m.copyMu.Unlock()
	}
	w.runs, w.buf, w.arena = nil, nil, nil
}

func writeRun(path string, rows []kv) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write run: %w", err)
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	var hdr []byte
	for _, r := range rows {
		hdr = binary.AppendUvarint(hdr[:0], uint64(len(r.key)))
		hdr = binary.AppendUvarint(hdr, uint64(len(r.val)))
		bw.Write(hdr)
		bw.Write(r.key)
		bw.Write(r.val)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write run %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write run %s: %w", path, err)
	}
	return nil
}

// runReader iterates one run. Rows read from a file are decoded into
// arena chunks; they stay valid after next (the builder may still hold
// them in a batch).
type runReader struct {
	r      *run
	i      int
	f      *os.File
	br     *bufio.Reader
	cur    kv
	path   string
	closed bool
	arena  []byte
}

func openRun(r *run) (*runReader, error) {
	rr := &runReader{r: r, i: -1}
	if r.path != "" {
		f, err := os.Open(r.path)
		if err != nil {
			return nil, fmt.Errorf("open run: %w", err)
		}
		rr.f, rr.br, rr.path = f, bufio.NewReaderSize(f, 256<<10), r.path
	}
	return rr, nil
}

func (rr *runReader) next() (bool, error) {
	if rr.f == nil {
		rr.i++
		if rr.i >= len(rr.r.mem) {
			return false, nil
		}
		rr.cur = rr.r.mem[rr.i]
		return true, nil
	}
	kl, err := binary.ReadUvarint(rr.br)
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read run %s: %w", rr.path, err)
	}
	vl, err := binary.ReadUvarint(rr.br)
	if err != nil {
		return false, fmt.Errorf("read run %s: %w", rr.path, err)
	}
	if kl > 1<<31 || vl > 1<<31 {
		return false, fmt.Errorf("read run %s: row of %d+%d bytes", rr.path, kl, vl)
	}
	n := int(kl + vl)
	l := len(rr.arena)
	if cap(rr.arena)-l < n {
		rr.arena = make([]byte, 0, max(copyArenaChunk, n))
		l = 0
	}
	rr.arena = rr.arena[:l+n]
	b := rr.arena[l : l+n : l+n]
	if _, err := io.ReadFull(rr.br, b); err != nil {
		return false, fmt.Errorf("read run %s: %w", rr.path, err)
	}
	rr.cur = kv{key: b[:kl:kl], val: b[kl:]}
	return true, nil
}

func (rr *runReader) close() {
	if rr.f != nil && !rr.closed {
		rr.f.Close()
		rr.closed = true
	}
}

// runHeap orders run readers by their current key.
type runHeap []*runReader

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return bytes.Compare(h[i].cur.key, h[j].cur.key) < 0 }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// build merges the runs into a tree: one goroutine merges, the caller's
// builds, so reading and comparing overlap with hashing and encoding
// nodes. Equal keys with equal values (a REPLICA IDENTITY FULL table
// without a unique key holding duplicate rows) collapse into one row;
// equal keys with different values are an error.
//
// Building on both cores (prolly parts chunked concurrently and stitched
// at their seams) was tried and measured: no faster, because the node
// store's writes (compression, then Badger, one batch in flight), not
// the builder, bound this phase.
func (tc *tableCopy) build(ctx context.Context, eng *prolly.Engine) (prolly.Root, error) {
	batches := make(chan []kv, 4)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(batches)
		return tc.merge(gctx, batches)
	})
	var root prolly.Root
	g.Go(func() error {
		b := eng.NewBuilder(gctx)
		for batch := range batches {
			for _, r := range batch {
				if err := b.Add(r.key, r.val); err != nil {
					return fmt.Errorf("copy %s: %w", tc.rel.QualifiedName(), err)
				}
			}
		}
		var err error
		root, err = b.Finish()
		return err
	})
	if err := g.Wait(); err != nil {
		return prolly.Root{}, err
	}
	return root, nil
}

// merge sends the runs' rows in key order, in batches, without
// duplicates. When the runs' key ranges are disjoint (the usual case: a
// key correlated with the heap order, as a serial primary key is), they
// are read one after the other in first-key order, with no comparison
// between runs; otherwise a heap merges them.
func (tc *tableCopy) merge(ctx context.Context, out chan<- []kv) error {
	const batchRows = 4096
	batch := make([]kv, 0, batchRows)
	send := func() error {
		select {
		case out <- batch:
			batch = make([]kv, 0, batchRows)
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var prev kv
	started := false
	add := func(cur kv) error {
		if started && bytes.Equal(cur.key, prev.key) {
			if !bytes.Equal(cur.val, prev.val) {
				return fmt.Errorf("copy %s: two rows with key %x", tc.rel.QualifiedName(), cur.key)
			}
			return nil
		}
		batch = append(batch, cur)
		prev, started = cur, true
		if len(batch) == batchRows {
			return send()
		}
		return nil
	}
	runs := slices.DeleteFunc(slices.Clone(tc.runs), func(r *run) bool { return r.rows == 0 })
	slices.SortFunc(runs, func(a, b *run) int { return bytes.Compare(a.first, b.first) })
	disjoint := true
	for i := 1; i < len(runs); i++ {
		if bytes.Compare(runs[i-1].last, runs[i].first) >= 0 {
			disjoint = false
			break
		}
	}
	if disjoint {
		for _, r := range runs {
			if err := tc.drainRun(r, add); err != nil {
				return err
			}
		}
	} else if err := tc.heapMerge(runs, add); err != nil {
		return err
	}
	if len(batch) > 0 {
		return send()
	}
	return nil
}

// drainRun passes every row of r to add, in order.
func (tc *tableCopy) drainRun(r *run, add func(kv) error) error {
	if r.path == "" {
		for _, e := range r.mem {
			if err := add(e); err != nil {
				return err
			}
		}
		return nil
	}
	rr, err := openRun(r)
	if err != nil {
		return err
	}
	defer rr.close()
	for {
		ok, err := rr.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if err := add(rr.cur); err != nil {
			return err
		}
	}
}

// heapMerge passes the rows of runs to add in key order (equal keys
// adjacent).
func (tc *tableCopy) heapMerge(runs []*run, add func(kv) error) error {
	var h runHeap
	defer func() {
		for _, rr := range h {
			rr.close()
		}
	}()
	for _, r := range runs {
		rr, err := openRun(r)
		if err != nil {
			return err
		}
		ok, err := rr.next()
		if err != nil {
			rr.close()
			return err
		}
		if !ok {
			rr.close()
			continue
		}
		h = append(h, rr)
	}
	heap.Init(&h)
	for h.Len() > 0 {
		rr := h[0]
		if err := add(rr.cur); err != nil {
			return err
		}
		ok, err := rr.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			rr.close()
			heap.Pop(&h)
		}
	}
	return nil
}

// TableCopied implements replication.CopySink: the table's runs are
// merged and bulk-built into a tree; then, in one Badger transaction, the
// table is recorded ready at lsn with its root (a table is copied at a
// known LSN or not at all). Changes held while the table waited for this
// resync are applied when their commit LSN is >= at (the copy does not
// contain them) and dropped otherwise.
func (m *Mirror) TableCopied(ctx context.Context, rel *replication.Relation, at replication.LSN) error {
	name := rel.QualifiedName()
	// A running GC waits for this tree to be recorded (RootWatch.Roots).
	m.buildMu.RLock()
	defer m.buildMu.RUnlock()
	m.copyMu.Lock()
	tc := m.copies[name]
	delete(m.copies, name)
	m.copyMu.Unlock()
	if tc == nil {
		// A table with no rows may have had no range at all.
		t, err := newTable(tableRecord{Name: name, Rel: rel})
		if err != nil {
			return fmt.Errorf("copy %s: %w", name, err)
		}
		tc = &tableCopy{rel: rel, t: t}
	}
	if tc.dir != "" {
		defer os.RemoveAll(tc.dir)
	}
	start := time.Now()
	root, err := tc.build(ctx, m.eng)
	if err != nil {
		return err
	}
	if err := m.ns.Flush(ctx); err != nil {
		return fmt.Errorf("copy %s: %w", name, err)
	}
	m.log.Info("table copied", "table", name, "at", at, "rows", tc.rows, "build", time.Since(start))

	m.mu.Lock()
	defer m.mu.Unlock()
	for m.txn != nil && m.err == nil {
		m.idle.Wait()
	}
	if m.err != nil {
		return m.err
	}
	// The group's pending edits were made against the old tree; flush
	// them so history up to now keeps them, then replace the tree.
	if err := m.flushGroup(ctx); err != nil {
		m.failLocked(err)
		return err
	}
	// Held changes of committed transactions must be readable.
	if err := m.drain(); err != nil {
		return fmt.Errorf("copy %s: %w", name, err)
	}
	t := m.tables[name]
	if t == nil {
		if t, err = newTable(tableRecord{Name: name, Rel: rel}); err != nil {
			return fmt.Errorf("copy %s: %w", name, err)
		}
	} else if t.rec.State == StateReady {
		// Its changes since the copy's snapshot were applied to the old
		// tree, not held: replacing the tree would lose them.
		return fmt.Errorf("copy %s: the table is ready; call MarkResync before re-copying it so that its changes during the copy are kept", name)
	}
	rec := tableRecord{Name: name, State: StateReady, CopiedAt: at, Rel: rel}
	nt, err := newTable(rec)
	if err != nil {
		return fmt.Errorf("copy %s: %w", name, err)
	}
	nt.latest = t.latest
	clearHeld := true
	if t.latest != nil && !t.latest.Equal(rel) {
		// The stream has already described a newer schema than the copy.
		nt.rec.State, nt.rec.ResyncFrom = StateResyncNeeded, t.rec.ResyncFrom
		clearHeld = false
		m.log.Warn("copied table changed again meanwhile; it needs another resync", "table", name)
	} else if root, err = m.applyHeld(ctx, nt, root, at); err != nil {
		var missing *missingRowError
		if !errors.As(err, &missing) {
			return fmt.Errorf("copy %s: held changes: %w", name, err)
		}
		nt.rec.State, nt.rec.ResyncFrom = StateResyncNeeded, at
		m.log.Warn("held change does not apply to the copy; table needs another resync", "table", name, "err", err)
	}
	if err := m.ns.Flush(ctx); err != nil {
		return fmt.Errorf("copy %s: %w", name, err)
	}
	n, err := m.eng.Count(ctx, root)
	if err != nil {
		return fmt.Errorf("copy %s: %w", name, err)
	}
	nt.rec.Root, nt.rec.Rows = root, n
	recs := map[string]tableRecord{}
	for tn, tt := range m.tables {
		recs[tn] = tt.rec
	}
	recs[name] = nt.rec
	// INVARIANT: the group record at the head names the copied root, in
	// the same Badger transaction as the table record that makes it ready.
	end := max(m.lastGroup, m.head.EndLSN)
	op := &writeOp{sync: true}
	if clearHeld {
		op.delPrefixes = [][]byte{heldPrefix(name)}
	}
	m.groupOp(end, recs, op)
	// Versions from this group on hold rows of the copy's schema.
	op.set(relKey(name, end), encodeRel(rel))
	if err := m.enqueueWait(op); err != nil {
		return fmt.Errorf("copy %s: record: %w", name, err)
	}
	m.tables[name] = nt
	m.lastGroup = end
	if m.opts.CopiedAt != nil {
		m.opts.CopiedAt.Set(name, at)
	}
	return nil
}

// readError marks an error of the tree read under applyHeld's row
// lookups, so it is reported as such rather than taken for a change made
// under another schema.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// applyHeld applies t's held changes with commit LSN >= at to root, in
// commit order. The caller holds mu.
func (m *Mirror) applyHeld(ctx context.Context, t *table, root prolly.Root, at replication.LSN) (prolly.Root, error) {
	set := newEditSet()
	flush := func() error {
		var err error
		root, err = set.apply(ctx, m.eng, root)
		set = newEditSet()
		return err
	}
	current := func(key []byte) ([]byte, bool, error) {
		if v, found, known := set.lookup(key); known {
			return v, found, nil
		}
		v, found, err := m.eng.Get(ctx, root, key)
		if err != nil {
			return nil, false, &readError{err}
		}
		return v, found, nil
	}
	prefix := heldPrefix(t.rec.Name)
	applied := 0
	err := m.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			if len(k) != len(prefix)+12 {
				return fmt.Errorf("%w: held key %x", errCorrupt, k)
			}
			if replication.LSN(binary.BigEndian.Uint64(k[len(prefix):])) < at {
				continue
			}
			var h *heldChange
			if err := it.Item().Value(func(v []byte) (err error) {
				h, err = decodeHeld(slices.Clone(v))
				return err
			}); err != nil {
				return err
			}
			if h.kind == replication.Truncate {
				set.truncate()
			} else if err := rowEdits(t, h.kind, h.oldKind, h.newVals, h.oldVals, current, set.put); err != nil {
				var missing *missingRowError
				var rerr *readError
				if errors.As(err, &missing) {
					return err
				}
				if errors.As(err, &rerr) {
					// The store failed (or ctx ended): not the table's fault.
					return fmt.Errorf("apply held changes of %s: %w", t.rec.Name, rerr.err)
				}
				// Made under another schema than the copy's: the table
				// needs another resync.
				return &missingRowError{table: t.rec.Name, key: nil, reason: err.Error()}
			}
			applied++
			if len(set.m) >= m.opts.SpillRows {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return prolly.Root{}, err
	}
	if applied > 0 {
		m.log.Info("applied changes held during resync", "table", t.rec.Name, "changes", applied)
	}
	return root, flush()
}
