// The copy's intake (wal.CopySink.CopyRange): ranges encode their rows and
// cut them into sorted runs within the copy memory budget; and Busy, the
// tables being copied.

package mirror

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sidecar-dev/sidecar/internal/prefault"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// Copy memory (Options.CopyMemory, the copy's share of memory.ingest):
// a range encodes its rows into arena chunks (one allocation per chunk,
// not two per row) and cuts them into sorted runs of at most copyRunBytes.
// Every chunk and row-header slice a range allocates is reserved from the
// mirror's copy pool first; a range that cannot reserve more cuts its run
// early, into a file under TempDir. A run stays in memory while the runs
// kept in memory total at most half the pool; beyond that, runs go to
// files. So a table that fits is never written to disk and read back,
// and the copy's rows never hold more than CopyMemory, plus one chunk per
// range when the pool is exhausted (a range always takes one row).
const (
	copyArenaChunk = 1 << 20
	copyMinChunk   = 64 << 10
	// kvOverhead is what one buffered row costs beyond its bytes: its
	// header (bufRow) in the range's slice.
	kvOverhead = bufRowSize
)

// copyRunBytes is the largest run a range buffers: Options.CopyRunBytes,
// at most an eighth of the copy memory (four ranges buffer at once, and
// the runs kept in memory take the other half).
func (m *Mirror) copyRunBytes() int64 {
	return min(m.opts.CopyRunBytes, max(m.opts.CopyMemory/8, copyMinChunk))
}

// copyChunk is the size of a range's arena chunks.
func (m *Mirror) copyChunk() int64 {
	return min(copyArenaChunk, max(m.copyRunBytes()/4, copyMinChunk))
}

// CopyMemory reports the copy pool: bytes reserved now, the most ever
// reserved, and its bound (Options.CopyMemory).
func (m *Mirror) CopyMemory() (used, peak, limit int64) {
	return m.copyPool.Used(), m.copyPool.Peak(), m.copyPool.Limit()
}

// tableCopy collects the sorted runs of one table's copy. Ranges arrive
// concurrently and in any order; each closed range adds its runs.
type tableCopy struct {
	rel *wal.Relation
	t   *table // key codec for rel
	dir string // run files
	// started is when its first range began (Busy reports it).
	started time.Time

	mu    sync.Mutex
	runs  []*run
	files int
	rows  int64
	mem   int64 // copy pool bytes of the runs kept in memory (under Mirror.copyMu)

	prog *copyProgress // rows built so far (CopyBuildProgress)
	// feed hands the ranges' rows to the consumers' intake builds
	// (copyfeed.go); nil for a REPLICA IDENTITY FULL table.
	feed *copyFeed

	stats buildStats // where the build waited (logged by TableCopied)
	// chunks counts the arena chunks the ranges allocated.
	chunks atomic.Int64
	// spare are chunks of runs written to files, for the ranges' next
	// rows (copyspare.go).
	spare spareChunks
}

// buildStats is where a copy's build (tableCopy.build) waited: the merge
// for the tree builder, the tree builder for the merge and for the
// consumers' builds, the consumers' builds for the tree builder. Each is
// written by one goroutine and read after the build ends; the stage that
// waits least bounds the build.
type buildStats struct {
	mergeBlocked, treeIdle, treeBlocked, consumerIdle time.Duration
	// readChunks counts the arena chunks the run files' readers
	// allocated (the others were written again: chunkReuse).
	readChunks int64
}

// copyProgress is how far a table's copy's build (the merge of its runs
// into the tree and the consumers' builds) is: rows copied, rows built.
type copyProgress struct {
	rows, built atomic.Int64
}

// CopyBuildProgress reports how far the build of table's copy is while
// TableCopied builds it (ok false otherwise): rows built into the tree of
// rows copied. The copy's progress ETA covers the build with it: the
// COPY phase is a third of a 10M-row copy, the build the rest
// (copy-2026-12-05-d.md).
func (m *Mirror) CopyBuildProgress(table string) (built, rows int64, ok bool) {
	m.copyMu.Lock()
	defer m.copyMu.Unlock()
	p := m.copyProg[table]
	if _, building := m.building[table]; !building || p == nil {
		return 0, 0, false
	}
	return p.built.Load(), p.rows.Load(), true
}

// releaseRuns gives the copy pool back the memory of tc's runs kept in
// memory (their rows are in the tree, or discarded).
func (m *Mirror) releaseRuns(tc *tableCopy) {
	m.copyMu.Lock()
	n := tc.mem
	tc.mem = 0
	m.copyRunsMem -= n
	m.copyMu.Unlock()
	m.copyPool.Release(n)
}

// Busy is a table whose mirror cannot be compared with PostgreSQL now: its
// initial copy is running, or it waits for a resync (its changes held)
// or is being copied again for one.
type Busy struct {
	Table string
	// Resync: the table was copied before and is being resynced; its
	// changes are held from commit LSN HeldFrom. Otherwise this is its
	// initial copy.
	Resync   bool
	HeldFrom wal.LSN
	// CopyStarted is when its copy began; zero while a resync waits for
	// its copy to start.
	CopyStarted time.Time
	// HeldUntil, for a resync whose copy is built, is the copy's LSN: the
	// copy is held until the stream reaches it (every commit below taken)
	// and lands then (landing.go). Zero while the copy has not been built.
	HeldUntil wal.LSN
}

// Busy lists the tables being copied (ranges or the tree build until
// TableCopied records them), waiting for a resync, or holding a resync's
// copy until the stream reaches it, by name.
func (m *Mirror) Busy() []Busy {
	started := map[string]time.Time{}
	m.copyMu.Lock()
	for name, tc := range m.copies {
		started[name] = tc.started
	}
	for name, at := range m.building {
		started[name] = at
	}
	m.copyMu.Unlock()
	var out []Busy
	m.mu.Lock()
	for name, t := range m.tables {
		if t.rec.State == StateResyncNeeded {
			b := Busy{Table: name, Resync: true, HeldFrom: t.rec.ResyncFrom, CopyStarted: started[name]}
			if hc := m.landing[name]; hc != nil {
				b.HeldUntil, b.CopyStarted = hc.at, hc.started
			}
			out = append(out, b)
		}
		delete(started, name)
	}
	m.mu.Unlock()
	for name, at := range started {
		out = append(out, Busy{Table: name, CopyStarted: at})
	}
	slices.SortFunc(out, func(a, b Busy) int { return strings.Compare(a.Table, b.Table) })
	return out
}

// CopyRange implements wal.CopySink: rows are encoded (key from
// the identity columns, vrow1 value), buffered, and cut into sorted runs
// of at most CopyRunBytes; runs stay in memory within the copy memory
// budget (see copyMemRuns) and go to files beyond it, so memory stays
// bounded by the budget plus workers × CopyRunBytes.
func (m *Mirror) CopyRange(ctx context.Context, rel *wal.Relation, r wal.BlockRange) (wal.RowWriter, error) {
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
		tc = &tableCopy{rel: rel, t: t, dir: dir, started: time.Now(), prog: &copyProgress{},
			feed: m.newCopyFeed(name, rel, t.full)}
		// One run's chunks: a range cutting its run to a file leaves
		// them for the ranges still filling theirs.
		tc.spare.max = m.copyRunBytes()
		m.copies[name] = tc
		m.copyProg[name] = tc.prog
	} else if !tc.rel.Equal(rel) {
		return nil, fmt.Errorf("copy %s range %d/%d: relation differs from the one its other ranges were copied with", name, r.Index+1, r.Of)
	}
	return &rangeWriter{m: m, tc: tc, texts: make([][]byte, len(tc.t.keyCols)),
		runBytes: m.copyRunBytes(), chunk: m.copyChunk()}, nil
}

// keepRunInMemory reports whether a run holding n bytes of the copy pool
// may stay in memory (the runs kept in memory take at most half the
// pool), and if so counts it against tc.
func (m *Mirror) keepRunInMemory(tc *tableCopy, n int64) bool {
	m.copyMu.Lock()
	defer m.copyMu.Unlock()
	if m.copyRunsMem+n > m.opts.CopyMemory/2 {
		return false
	}
	m.copyRunsMem += n
	tc.mem += n
	return true
}

// rangeWriter receives one block range.
type rangeWriter struct {
	m     *Mirror
	tc    *tableCopy
	buf   []bufRow
	bytes int64
	runs  []*run
	rows  int64
	arena []byte // current chunk: rows are encoded at its end
	// filled are the chunks before arena holding rows of buf: a run cut
	// to a file leaves them to the copy's spare chunks.
	filled  [][]byte
	scratch []byte   // one row's value and key, before they go to arena
	texts   [][]byte // one row's key column texts
	// unsorted: a row of the buffer has a key not above the one before
	// (rows arrive in heap order; a serial key keeps them sorted).
	unsorted bool
	// fed: rows of the range went to the intake builds (copyFeed), which
	// must then be discarded if the range aborts.
	fed bool
	// held is what the range reserved from the copy pool for its arena
	// chunks and buf; runBytes and chunk are the copy's sizes.
	held            int64
	runBytes, chunk int64
}

// reserve takes n bytes from the copy pool for the range's buffer. When
// the pool is exhausted it cuts the range's run (into a file, as the
// pool has no room to keep it) and reports false with nothing reserved:
// the caller then reuses what the cut freed, or overdraws (take).
func (w *rangeWriter) reserve(n int64) (bool, error) {
	if w.m.copyPool.Reserve(n) == nil {
		w.held += n
		return true, nil
	}
	if len(w.buf) == 0 {
		return false, nil
	}
	return false, w.cut()
}

// take reserves n bytes even past the pool's bound: the one chunk a range
// needs to take a row at all.
func (w *rangeWriter) take(n int64) {
	w.m.copyPool.Take(n)
	w.held += n
}

// WriteRow encodes the row's vrow1 value and key (the same bytes as the
// stream's encodeRow and rowKey: TestCopyRootMatchesReference checks it)
// into the range's arena.
func (w *rangeWriter) WriteRow(values []wal.Value) error {
	t := w.tc.t
	row := w.scratch[:0]
	for i, v := range values {
		switch v.Kind {
		case wal.Null:
			row = rowenc.AppendNull(row)
		case wal.Text:
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
			if v.Kind != wal.Text {
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
	// Room for the row's header first: making it may cut the run, which
	// reuses the arena.
	if len(w.buf) == cap(w.buf) {
		if err := w.growBuf(len(row)); err != nil {
			return err
		}
	}
	b, err := w.alloc(len(row))
	if err != nil {
		return err
	}
	copy(b, row)
	// A REPLICA IDENTITY FULL row is sorted by the whole row: its key is
	// its value until merge numbers the row's occurrence
	// (occurrenceNumberer).
	r := newBufRow(b, n)
	if len(w.buf) > 0 && !w.unsorted && bytes.Compare(w.buf[len(w.buf)-1].key(t.full), r.key(t.full)) >= 0 {
		w.unsorted = true
	}
	w.buf = append(w.buf, r)
	w.bytes += int64(len(b) + kvOverhead)
	w.rows++
	if w.bytes >= w.runBytes {
		return w.cut()
	}
	return nil
}

// growBuf makes room in buf for one more row (of about rowLen bytes): at
// first for a full run of rows like this one (growing the slice by
// doubling would copy it about twice over), reserved from the copy pool.
func (w *rangeWriter) growBuf(rowLen int) error {
	n := max(2*cap(w.buf), int(min(w.runBytes/int64(rowLen+kvOverhead)+1, 1<<20)))
	ok, err := w.reserve(int64(n) * bufRowSize)
	if err != nil {
		return err
	}
	if !ok {
		if cap(w.buf) > len(w.buf) { // the cut emptied it
			return nil
		}
		n = max(2*cap(w.buf), 64)
		w.take(int64(n) * bufRowSize)
	}
	nb := make([]bufRow, len(w.buf), n)
	copy(nb, w.buf)
	w.m.copyPool.Release(int64(cap(w.buf)) * bufRowSize)
	w.held -= int64(cap(w.buf)) * bufRowSize
	w.buf = nb
	return nil
}

// alloc returns n bytes at the end of the arena, starting a new chunk
// (reserved from the copy pool) when the current one is full. Chunks are
// never reused while runs kept in memory point into them.
func (w *rangeWriter) alloc(n int) ([]byte, error) {
	l := len(w.arena)
	if cap(w.arena)-l < n {
		size := max(w.chunk, int64(n))
		if b := w.tc.spare.get(int(size)); b != nil {
			// A chunk of a run already in a file, reservation and all.
			w.held += int64(cap(b))
			w.retireArena()
			w.arena = b
			l = 0
		} else {
			ok, err := w.reserve(size)
			if err != nil {
				return nil, err
			}
			l = len(w.arena)
			switch {
			case !ok && cap(w.arena)-l >= n:
				// The cut went to a file and left the chunk empty for reuse.
			case !ok:
				w.take(size)
				fallthrough
			default:
				w.retireArena()
				w.arena = make([]byte, 0, size)
				// The range fills the whole chunk: mapped in one call,
				// not a fault a page (internal/prefault).
				prefault.Write(w.arena)
				w.tc.chunks.Add(1)
				l = 0
			}
		}
	}
	w.arena = w.arena[:l+n]
	return w.arena[l : l+n : l+n], nil
}

// retireArena is done with the current chunk before a new one: kept
// with the buffer's rows in filled, or, holding none of them, handed
// to the spare chunks or given back.
func (w *rangeWriter) retireArena() {
	switch {
	case cap(w.arena) == 0:
	case len(w.buf) > 0:
		w.filled = append(w.filled, w.arena)
	case w.tc.spare.put(w.arena):
		w.held -= int64(cap(w.arena))
	default:
		w.release(int64(cap(w.arena)))
	}
	w.arena = nil
}

// release gives n of the range's reserved bytes back to the copy pool.
func (w *rangeWriter) release(n int64) {
	n = min(n, w.held)
	w.held -= n
	w.m.copyPool.Release(n)
}

// cut sorts the buffer into a run, kept in memory when the copy memory
// budget allows, else written to a file.
func (w *rangeWriter) cut() error {
	if len(w.buf) == 0 {
		return nil
	}
	full := w.tc.t.full
	if w.unsorted {
		slices.SortFunc(w.buf, func(a, b bufRow) int { return bytes.Compare(a.key(full), b.key(full)) })
	}
	w.unsorted = false
	// The consumers that build from rows in any order take the run now,
	// while the other ranges go on (one pass over its bytes: they copy
	// what they keep), rather than from the merge after the last range.
	if w.tc.feed.add(w.buf) {
		w.fed = true
	}
	first, last := w.buf[0].key(full), w.buf[len(w.buf)-1].key(full)
	if w.m.keepRunInMemory(w.tc, w.held) {
		w.runs = append(w.runs, &run{mem: w.buf, first: first, last: last, rows: len(w.buf), memBytes: w.held})
		// The run owns the arena chunks its rows are in, and their
		// reservation.
		w.buf, w.bytes, w.arena, w.filled, w.held = nil, 0, nil, nil, 0
		return nil
	}
	w.tc.mu.Lock()
	w.tc.files++
	path := fmt.Sprintf("%s/run-%06d", w.tc.dir, w.tc.files)
	w.tc.mu.Unlock()
	if err := writeRun(path, w.buf, full); err != nil {
		return fmt.Errorf("copy %s: %w", w.tc.t.rec.Name, err)
	}
	w.runs = append(w.runs, &run{path: path, first: slices.Clone(first), last: slices.Clone(last), rows: len(w.buf)})
	// The rows are on disk: the buffer and the current chunk are free
	// again, the older chunks go to the copy's spare chunks with their
	// reservation, for whichever range needs a chunk next (beyond the
	// spare's bound they are garbage, their reservation given back).
	// Keeping them for this range's own next rows only was tried
	// (session 16): at 3M rows peak RSS +200 MB, +55k minor faults
	// (copy-2026-12-06-s16.md).
	clear(w.buf)
	w.buf, w.bytes = w.buf[:0], 0
	w.arena = w.arena[:0]
	for i, c := range w.filled {
		if w.tc.spare.put(c) {
			w.held -= int64(cap(c))
		}
		w.filled[i] = nil
	}
	w.filled = w.filled[:0]
	w.release(w.held - int64(cap(w.arena)) - int64(cap(w.buf))*bufRowSize)
	return nil
}

// Close cuts the range's last run.
func (w *rangeWriter) Close() error {
	if err := w.cut(); err != nil {
		return err
	}
	// What is left is the buffer and chunk of a run that went to a file:
	// the chunk, empty, is spare for the other ranges.
	if w.tc.spare.put(w.arena) {
		w.held -= int64(cap(w.arena))
	}
	w.release(w.held)
	w.buf, w.arena = nil, nil
	w.tc.mu.Lock()
	w.tc.runs = append(w.tc.runs, w.runs...)
	w.tc.rows += w.rows
	w.tc.mu.Unlock()
	return nil
}

// Abort forgets the range's rows and removes its run files; the intake
// builds fed some of them are discarded.
func (w *rangeWriter) Abort() {
	if w.fed {
		w.tc.feed.fail()
	}
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
		w.m.copyRunsMem -= mem
		w.m.copyMu.Unlock()
		w.m.copyPool.Release(mem)
	}
	w.release(w.held)
	w.runs, w.buf, w.arena, w.filled = nil, nil, nil, nil
}
