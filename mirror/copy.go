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
	"time"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
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
	rel *wal.Relation
	t   *table // key codec for rel
	dir string // run files
	// started is when its first range began (Busy reports it).
	started time.Time

	mu    sync.Mutex
	runs  []*run
	files int
	rows  int64
	mem   int64 // bytes of the runs kept in memory (under Mirror.copyMu)
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
}

// Busy lists the tables being copied (ranges or the tree build until
// TableCopied records them) or waiting for a resync, by name.
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
			out = append(out, Busy{Table: name, Resync: true, HeldFrom: t.rec.ResyncFrom, CopyStarted: started[name]})
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
		tc = &tableCopy{rel: rel, t: t, dir: dir, started: time.Now()}
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
	b := w.alloc(len(row))
	copy(b, row)
	r := kv{key: b[n:], val: b[:n:n]}
	if t.full {
		// Sorted by the whole row: key and value are one slice until
		// merge numbers the row's occurrence (occurrenceNumberer).
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
