// The copy's external sort: sorted runs, in memory or in files, merged
// (one after the other when their key ranges are disjoint, by a heap
// otherwise) and bulk-built into a tree.

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
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/sidecar-dev/sidecar/internal/prefault"
	"github.com/sidecar-dev/sidecar/prolly"

	"golang.org/x/sync/errgroup"
)

// run is a sorted sequence of rows, in memory or in a file, with its
// first and last keys (for the merge's disjointness check).
type run struct {
	mem         []bufRow
	path        string
	first, last []byte
	rows        int
	memBytes    int64 // counted in tableCopy.mem while in memory
}

// drop forgets the rows of a run kept in memory once the merge has passed
// them, so that its arena chunks become garbage while the build goes on
// (the builders copy what they keep of a row, and a batch drops its rows
// when recycled) and the HEAD built meanwhile reuses their memory instead
// of touching fresh pages: on a VM a first touch costs ~20 µs a 4 KiB page
// of CPU (copy-2026-12-06-s14.md), and the rows of a 1M-row copy were
// ~125 MB held until the whole build ended. first and last point into the
// first and last chunks: they are cloned. Its memBytes stay counted in the
// copy pool until releaseRuns (the build's end).
func (r *run) drop() {
	if r.mem == nil {
		return
	}
	r.mem = nil
	r.first, r.last = slices.Clone(r.first), slices.Clone(r.last)
}

type kv struct{ key, val []byte }

// bufRow is a row buffered by a copy range (and kept in a run in memory):
// its encoded value followed by its key, in one of the range's arena
// chunks. It is a third of a kv (16 bytes, not 48): a range writes one per
// row into fresh memory, and the GC scans one pointer instead of two.
// The pointer keeps the chunk alive.
type bufRow struct {
	p    *byte  // the value's first byte
	n, k uint32 // value and key lengths
}

const bufRowSize = 16 // unsafe.Sizeof(bufRow{})

// newBufRow refers to b, a row's value (its first n bytes) followed by its
// key. b is never empty (a row has at least one column).
func newBufRow(b []byte, n int) bufRow {
	return bufRow{p: &b[0], n: uint32(n), k: uint32(len(b) - n)}
}

// val is the row's value (capacity its length).
func (r bufRow) val() []byte { return unsafe.Slice(r.p, r.n) }

// key is the row's key; for a REPLICA IDENTITY FULL table (full), its
// value.
func (r bufRow) key(full bool) []byte {
	if full {
		return r.val()
	}
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(r.p), r.n)), r.k)
}

// kv returns the row as a kv.
func (r bufRow) kv(full bool) kv { return kv{key: r.key(full), val: r.val()} }

func writeRun(path string, rows []bufRow, full bool) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write run: %w", err)
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	var hdr []byte
	for _, br := range rows {
		r := br.kv(full)
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
	chunk  int  // arena chunk size
	full   bool // the table is REPLICA IDENTITY FULL (bufRow.key)
	// reuse, if set, recycles the arena's chunks once no row in them is
	// referenced any more (else every chunk is fresh memory, garbage
	// only at the next GC: 1.2 GB of first-touched pages at 10M rows).
	reuse *chunkReuse
}

// retiredChunk is a filled arena chunk of a run file's reader and the
// merge's batch sequence when it was filled: its rows are in batches up
// to that one.
type retiredChunk struct {
	b   []byte
	seq int64
}

// chunkReuse tells a run file's reader when a filled arena chunk may be
// written again: every row read into it was passed to the merge's add
// before the reader moved on (add before next, in drainRun and
// heapMerge), so its rows are in batches up to the one being filled
// then; filling reports that batch's sequence number, and done whether
// the batch with a given sequence number has been recycled (batches are
// recycled in order: the tree builder, then the consumers, take them in
// the order sent). With filling nil rows are not kept past add
// (mergeToFile writes them out): a chunk is free as soon as it is full.
type chunkReuse struct {
	filling func() int64
	done    func(seq int64) bool
	made    *int64 // counts the chunks allocated (buildStats.readChunks), if set
	// retired are the filled (or closed) readers' chunks, oldest first,
	// with the batch sequence at which each was left: the sequence only
	// grows, so the first is the first to be free. Shared by the readers
	// of one merge (one goroutine).
	retired []retiredChunk
}

// free reports whether a chunk retired at seq may be written again.
func (c *chunkReuse) free(seq int64) bool {
	return c.filling == nil || c.done(seq)
}

// retire queues a chunk a reader is done filling.
func (c *chunkReuse) retire(b []byte) {
	if cap(b) == 0 {
		return
	}
	var seq int64
	if c.filling != nil {
		seq = c.filling()
	}
	c.retired = append(c.retired, retiredChunk{b: b[:0], seq: seq})
}

// take returns a retired chunk of at least n bytes that no row
// referenced is in, or nil. Free chunks too small are left to the GC.
func (c *chunkReuse) take(n int) []byte {
	for len(c.retired) > 0 && c.free(c.retired[0].seq) {
		old := c.retired[0].b
		c.retired[0] = retiredChunk{}
		c.retired = c.retired[1:]
		if cap(old) >= n {
			return old
		}
	}
	return nil
}

// newChunk returns an empty arena chunk of at least n bytes: the oldest
// retired chunk when no row in it is referenced any more, else a new one.
func (rr *runReader) newChunk(n int) []byte {
	if rr.reuse != nil {
		rr.reuse.retire(rr.arena)
		rr.arena = nil
		if b := rr.reuse.take(n); b != nil {
			return b
		}
		if rr.reuse.made != nil {
			*rr.reuse.made++
		}
	}
	b := make([]byte, 0, max(rr.chunk, n))
	// Filled row by row: mapped in one call, not a fault a page
	// (internal/prefault).
	prefault.Write(b)
	return b
}

// runReadBuf is the read buffer and arena chunk of a run file's reader
// when one is read at a time; a heap merge of many files gives each a
// share of the copy memory instead (mergeBufs).
const runReadBuf = 256 << 10

// openRun opens r with a read buffer of buf bytes and arena chunks of as
// many (for a run file).
func openRun(r *run, buf int, full bool, reuse *chunkReuse) (*runReader, error) {
	rr := &runReader{r: r, i: -1, chunk: buf, full: full, reuse: reuse}
	if r.path != "" {
		f, err := os.Open(r.path)
		if err != nil {
			return nil, fmt.Errorf("open run: %w", err)
		}
		rr.f, rr.br, rr.path = f, bufio.NewReaderSize(f, buf), r.path
	}
	return rr, nil
}

func (rr *runReader) next() (bool, error) {
	if rr.f == nil {
		rr.i++
		if rr.i >= len(rr.r.mem) {
			rr.r.drop()
			return false, nil
		}
		rr.cur = rr.r.mem[rr.i].kv(rr.full)
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
		rr.arena = rr.newChunk(n)
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
	if rr.reuse != nil {
		// Its last rows may still be in batches in flight.
		rr.reuse.retire(rr.arena)
		rr.arena = nil
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
// nodes. Equal keys with different values are an error; a REPLICA
// IDENTITY FULL table's rows are sorted by their vrow1 and numbered as
// occurrences here (occurrenceNumberer), so identical rows stay distinct.
//
// Building on both cores (prolly parts chunked concurrently and stitched
// at their seams) was tried and measured: no faster, because the node
// store's writes (compression, then Badger, one batch in flight), not
// the builder, bound this phase.
//
// With consumer builds (bs), a third goroutine hands each batch the tree
// builder is done with to them (copyBuilds.add) before it is reused: the
// consumers build their state from the same sorted rows, overlapping the
// tree's build, instead of reading the recorded tree back afterwards.
func (tc *tableCopy) build(ctx context.Context, eng *prolly.Engine, mem int64, bs copyBuilds) (prolly.Root, error) {
	batches := make(chan []kv, mergeBatches-1)
	// free returns the builder's spent batches to the merge (the builder
	// copies what it keeps of a row), so the merge reuses mergeBatches
	// slices instead of allocating one per batchRows rows.
	free := make(chan []kv, mergeBatches)
	var recycled atomic.Int64 // batches done with, in the order sent
	recycle := func(batch []kv) {
		clear(batch) // drop the row references before reuse
		recycled.Add(1)
		select {
		case free <- batch[:0]:
		default:
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(batches)
		return tc.merge(gctx, batches, free, mem, &recycled)
	})
	spent := recycle
	var built chan []kv
	if len(bs) > 0 {
		built = make(chan []kv, mergeBatches-1)
		spent = func(batch []kv) {
			t0 := time.Now()
			built <- batch
			tc.stats.treeBlocked += time.Since(t0)
		}
		g.Go(func() error {
			for {
				t0 := time.Now()
				batch, ok := <-built
				tc.stats.consumerIdle += time.Since(t0)
				if !ok {
					return nil
				}
				bs.addBatch(batch)
				recycle(batch)
			}
		})
	}
	var root prolly.Root
	g.Go(func() error {
		if built != nil {
			defer close(built)
		}
		var err error
		root, err = tc.buildTree(gctx, eng, batches, spent)
		return err
	})
	if err := g.Wait(); err != nil {
		return prolly.Root{}, err
	}
	return root, nil
}

// buildTree adds every row of batches to a new tree, passing each batch
// to spent once it is done with it.
func (tc *tableCopy) buildTree(ctx context.Context, eng *prolly.Engine, batches <-chan []kv, spent func([]kv)) (prolly.Root, error) {
	b := eng.NewBuilder(ctx)
	if tc.prog != nil {
		tc.mu.Lock()
		tc.prog.rows.Store(tc.rows)
		tc.mu.Unlock()
		tc.prog.built.Store(0)
	}
	for {
		t0 := time.Now()
		batch, ok := <-batches
		tc.stats.treeIdle += time.Since(t0)
		if !ok {
			break
		}
		for _, r := range batch {
			if err := b.Add(r.key, r.val); err != nil {
				return prolly.Root{}, fmt.Errorf("copy %s: %w", tc.rel.QualifiedName(), err)
			}
		}
		if tc.prog != nil {
			tc.prog.built.Add(int64(len(batch)))
		}
		spent(batch)
	}
	return b.Finish()
}

// The merge hands rows to the builder in batches of batchRows; at most
// mergeBatches batches exist at once (queued, being filled, being
// built), recycled through build's free channel.
const (
	batchRows    = 4096
	mergeBatches = 6
)

// merge sends the runs' rows in key order, in batches, without
// duplicates. When the runs' key ranges are disjoint (the usual case: a
// key correlated with the heap order, as a serial primary key is), they
// are read one after the other in first-key order, with no comparison
// between runs; otherwise a heap merges them.
//
// mem bounds the read buffers of the run files merged at once: with more
// files than it gives each the least buffer for (mergeMinBuf, twice: the
// read buffer and the arena), groups of them are first merged into
// longer run files.
func (tc *tableCopy) merge(ctx context.Context, out chan<- []kv, free <-chan []kv, mem int64, recycled *atomic.Int64) error {
	batch := make([]kv, 0, batchRows)
	// sent numbers the batches: the one being filled is batch sent. A
	// run file's reader writes a chunk again once every batch up to the
	// one being filled when it was full has been recycled.
	var sent int64
	reuse := &chunkReuse{
		filling: func() int64 { return sent },
		done:    func(seq int64) bool { return recycled.Load() > seq },
		made:    &tc.stats.readChunks,
	}
	send := func() error {
		sent++
		t0 := time.Now()
		select {
		case out <- batch:
		case <-ctx.Done():
			return ctx.Err()
		}
		tc.stats.mergeBlocked += time.Since(t0)
		select {
		case batch = <-free:
		default:
			batch = make([]kv, 0, batchRows)
		}
		return nil
	}
	var prev kv
	started := false
	var occ occurrenceNumberer
	add := func(cur kv) error {
		if tc.t.full {
			// A multiset: identical rows are numbered occurrences.
			cur = occ.number(cur)
		} else if started && bytes.Equal(cur.key, prev.key) {
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
			if err := tc.drainRun(r, add, reuse); err != nil {
				return err
			}
		}
	} else {
		var err error
		if runs, err = tc.narrowRuns(ctx, runs, mem); err != nil {
			return err
		}
		if err := tc.heapMerge(runs, mergeBuf(runs, mem), add, reuse); err != nil {
			return err
		}
	}
	if len(batch) > 0 {
		return send()
	}
	return nil
}

// drainRun passes every row of r to add, in order.
func (tc *tableCopy) drainRun(r *run, add func(kv) error, reuse *chunkReuse) error {
	if r.path == "" {
		for _, e := range r.mem {
			if err := add(e.kv(tc.t.full)); err != nil {
				return err
			}
		}
		r.drop()
		return nil
	}
	rr, err := openRun(r, runReadBuf, tc.t.full, reuse)
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
func (tc *tableCopy) heapMerge(runs []*run, buf int, add func(kv) error, reuse *chunkReuse) error {
	var h runHeap
	defer func() {
		for _, rr := range h {
			rr.close()
		}
	}()
	for _, r := range runs {
		rr, err := openRun(r, buf, tc.t.full, reuse)
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

// mergeMinBuf is the least read buffer (and arena chunk) a run file gets
// in a heap merge.
const mergeMinBuf = 16 << 10

// mergeBuf is the read buffer of each run file when runs are merged at
// once within mem bytes of buffers (two per file: read buffer, arena).
func mergeBuf(runs []*run, mem int64) int {
	files := 0
	for _, r := range runs {
		if r.path != "" {
			files++
		}
	}
	if files == 0 {
		return mergeMinBuf
	}
	return int(min(runReadBuf, max(mem/int64(2*files), mergeMinBuf)))
}

// narrowRuns merges groups of run files into longer run files until a
// heap merge of what is left keeps its read buffers within mem (at
// least mergeMinBuf each). Rows are kept as they are: duplicates and
// occurrences are the final merge's business.
func (tc *tableCopy) narrowRuns(ctx context.Context, runs []*run, mem int64) ([]*run, error) {
	fanIn := max(int(mem/(2*mergeMinBuf)), 2)
	for {
		var files, rest []*run
		for _, r := range runs {
			if r.path != "" {
				files = append(files, r)
			} else {
				rest = append(rest, r)
			}
		}
		if len(files) <= fanIn {
			return runs, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		group := files[:fanIn]
		merged, err := tc.mergeToFile(group, mergeBuf(group, mem))
		if err != nil {
			return nil, err
		}
		for _, r := range group {
			os.Remove(r.path)
		}
		runs = append(append(rest, files[fanIn:]...), merged)
		slices.SortFunc(runs, func(a, b *run) int { return bytes.Compare(a.first, b.first) })
	}
}

// mergeToFile merges runs into one new run file.
func (tc *tableCopy) mergeToFile(runs []*run, buf int) (*run, error) {
	tc.mu.Lock()
	tc.files++
	path := fmt.Sprintf("%s/run-%06d", tc.dir, tc.files)
	tc.mu.Unlock()
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("copy %s: merge runs: %w", tc.rel.QualifiedName(), err)
	}
	bw := bufio.NewWriterSize(f, runReadBuf)
	out := &run{path: path}
	var hdr []byte
	// Rows are written out as they come (first and last cloned): a
	// reader's chunk is free again once full.
	err = tc.heapMerge(runs, buf, func(r kv) error {
		if out.rows == 0 {
			out.first = slices.Clone(r.key)
		}
		out.last = append(out.last[:0], r.key...)
		out.rows++
		hdr = binary.AppendUvarint(hdr[:0], uint64(len(r.key)))
		hdr = binary.AppendUvarint(hdr, uint64(len(r.val)))
		bw.Write(hdr)
		bw.Write(r.key)
		_, err := bw.Write(r.val)
		return err
	}, &chunkReuse{})
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("copy %s: merge runs into %s: %w", tc.rel.QualifiedName(), path, err)
	}
	return out, nil
}

// bufRowSize is bufRow's size, both ways.
var (
	_ [bufRowSize - unsafe.Sizeof(bufRow{})]struct{}
	_ [unsafe.Sizeof(bufRow{}) - bufRowSize]struct{}
)
