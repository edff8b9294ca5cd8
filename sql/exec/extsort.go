package exec

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// External sort. A full ORDER BY whose rows would pass the statement's
// working memory (sidecar.work_mem, memory.query) writes sorted runs to
// temporary files under Options.TempDir and merges them, as PostgreSQL's
// tuplesort does past work_mem: the rows held in memory at once are
// bounded by the budget, whatever the input's size. Each run is sorted
// stably and the merge breaks ties by run (earlier input first), so the
// answer is the in-memory stable sort's. A run's rows are the values'
// binary send form (types.Send / types.Recv, exact for every catalog
// type), each prefixed by its length. The files live in a directory of
// the statement's own, removed when the sort ends — normally, on an
// error, on cancel or statement_timeout (every batch checks the
// context), and so when the client goes away; the bytes written are
// capped by Options.TempFileLimit (53400, as temp_file_limit).

// mergeFanIn is the runs merged at once; more are merged in passes.
const mergeFanIn = 64

// runBufBytes is the read or write buffer of one run file.
const runBufBytes = 32 << 10

// spill is the temporary files of one external sort.
type spill struct {
	e       *env
	dir     string
	oids    []types.OID
	runs    []string
	written int64
	cur     *os.File      // the run being written
	w       *bufio.Writer // its buffer
	buf     []byte        // one encoded row
	val     []byte        // one encoded value (reused: no allocation per value)
	// op names the operator for errors and the directory ("" is sort).
	op string
}

// tempLimitError is PostgreSQL's temp_file_limit refusal.
func (e *env) tempLimitError() error {
	return &types.Error{Code: "53400", Message: fmt.Sprintf("temporary file size exceeds temp_file_limit (%dkB)", e.tempLimit>>10),
		Detail: "the limit is sidecar's sql.temp_file_limit setting"}
}

// writeRun writes rows (sorted) as a new run.
func (sp *spill) writeRun(rows [][]types.Value) error {
	if err := sp.beginRun(); err != nil {
		return err
	}
	err := sp.appendRows(rows)
	if err2 := sp.endRun(); err == nil {
		err = err2
	}
	return err
}

// beginRun opens a new run file (the last of sp.runs).
func (sp *spill) beginRun() error {
	if sp.dir == "" {
		if err := sp.mkdir(); err != nil {
			return err
		}
	}
	f, err := os.CreateTemp(sp.dir, "run-")
	if err != nil {
		return fmt.Errorf("sort: temporary file: %w", err)
	}
	sp.runs = append(sp.runs, f.Name())
	sp.cur, sp.w = f, bufio.NewWriterSize(f, runBufBytes)
	return nil
}

// appendRows writes rows at the end of the open run.
func (sp *spill) appendRows(rows [][]types.Value) error {
	for i, r := range rows {
		if i%BatchSize == 0 {
			if err := sp.e.check(); err != nil {
				return err
			}
		}
		if err := sp.writeRow(sp.w, r); err != nil {
			return err
		}
	}
	return nil
}

// writeRow encodes r (of the types sp.oids) onto w, counting its bytes
// against the statement's temporary-file cap (53400 past it).
func (sp *spill) writeRow(w *bufio.Writer, r []types.Value) error {
	sp.buf = sp.buf[:0]
	for c, v := range r {
		if v == nil {
			sp.buf = binary.AppendUvarint(sp.buf, 0)
			continue
		}
		b, err := types.AppendSend(sp.val[:0], sp.oids[c], v)
		if err != nil {
			return errNoSpill
		}
		sp.val = b
		sp.buf = binary.AppendUvarint(sp.buf, uint64(len(b))+1)
		sp.buf = append(sp.buf, b...)
	}
	n := int64(len(sp.buf))
	sp.written += n
	sp.e.tempUsed += n
	if sp.e.tempLimit > 0 && sp.e.tempUsed > sp.e.tempLimit {
		return sp.e.tempLimitError()
	}
	if _, err := w.Write(sp.buf); err != nil {
		return fmt.Errorf("%s: writing a temporary file: %w", sp.what(), err)
	}
	return nil
}

// what names the operator whose files these are, for errors.
func (sp *spill) what() string {
	if sp.op == "" {
		return "sort"
	}
	return sp.op
}

// endRun flushes and closes the open run.
func (sp *spill) endRun() error {
	err := sp.w.Flush()
	if err2 := sp.cur.Close(); err == nil {
		err = err2
	}
	sp.cur, sp.w = nil, nil
	if err != nil {
		return fmt.Errorf("sort: writing a run: %w", err)
	}
	return nil
}

// errNoSpill: a value the run format cannot carry; the sort fails with
// the working-memory refusal instead.
var errNoSpill = errors.New("sort: a value cannot be written to a run")

// mkdir makes the operator's own temporary directory.
func (sp *spill) mkdir() error {
	d, err := os.MkdirTemp(sp.e.tempDir, strings.ReplaceAll(sp.what(), " ", "-")+"-")
	if err != nil {
		return fmt.Errorf("%s: temporary directory: %w", sp.what(), err)
	}
	sp.dir = d
	return nil
}

// remove deletes the operator's files (their bytes no longer count
// against the statement's temporary-file cap).
func (sp *spill) remove() {
	if sp.cur != nil {
		sp.cur.Close()
	}
	if sp.dir != "" {
		os.RemoveAll(sp.dir)
		sp.dir = ""
	}
	sp.e.tempUsed -= sp.written
	sp.written = 0
}

// runReader reads one run's rows in order.
type runReader struct {
	f    *os.File
	r    *bufio.Reader
	oids []types.OID
	buf  []byte
}

func (sp *spill) open(name string) (*runReader, error) {
	return sp.openSized(name, runBufBytes)
}

// openSized opens a file of sp's rows with a read buffer of size bytes.
func (sp *spill) openSized(name string, size int) (*runReader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: reading a temporary file: %w", sp.what(), err)
	}
	return &runReader{f: f, r: bufio.NewReaderSize(f, size), oids: sp.oids}, nil
}

// next is the run's next row (nil at its end).
func (rr *runReader) next() ([]types.Value, error) {
	row := make([]types.Value, len(rr.oids))
	for c := range row {
		n, err := binary.ReadUvarint(rr.r)
		if err == io.EOF && c == 0 {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("sort: reading a run: %w", err)
		}
		if n == 0 {
			continue
		}
		if cap(rr.buf) < int(n-1) {
			rr.buf = make([]byte, n-1)
		}
		b := rr.buf[:n-1]
		if _, err := io.ReadFull(rr.r, b); err != nil {
			return nil, fmt.Errorf("sort: reading a run: %w", err)
		}
		if row[c], err = types.Recv(rr.oids[c], -1, b); err != nil {
			return nil, fmt.Errorf("sort: reading a run: %w", err)
		}
		if a, ok := row[c].(*types.Array); ok && len(b) >= 8 && binary.BigEndian.Uint32(b[4:]) == 1 {
			// array_recv counts the NULL elements; a spilled value
			// keeps the null bitmap it was sent with.
			a.NullBitmap = true
		}
	}
	return row, nil
}

// mergeItem is a run's current row.
type mergeItem struct {
	row []types.Value
	run int
}

// merge merges the runs names (in input order) calling out for each row
// in order.
func (sp *spill) merge(keys []winKey, names []string, out func([]types.Value) error) error {
	// The runs' current rows in order, ties by run.
	h := &sliceHeap[mergeItem]{less: func(a, b *mergeItem) bool {
		if c := compareKeys(keys, a.row, b.row); c != 0 {
			return c < 0
		}
		return a.run < b.run
	}}
	readers := make([]*runReader, len(names))
	defer func() {
		for _, r := range readers {
			if r != nil {
				r.f.Close()
			}
		}
	}()
	for i, n := range names {
		r, err := sp.open(n)
		if err != nil {
			return err
		}
		readers[i] = r
		row, err := r.next()
		if err != nil {
			return err
		}
		if row != nil {
			h.items = append(h.items, mergeItem{row, i})
		}
	}
	heap.Init(h)
	for n := 0; h.Len() > 0; n++ {
		if n%BatchSize == 0 {
			if err := sp.e.check(); err != nil {
				return err
			}
		}
		top := h.items[0]
		if err := out(top.row); err != nil {
			return err
		}
		row, err := readers[top.run].next()
		if err != nil {
			return err
		}
		if row == nil {
			heap.Pop(h)
			readers[top.run].f.Close()
			readers[top.run] = nil
			os.Remove(names[top.run])
			continue
		}
		h.items[0].row = row
		heap.Fix(h, 0)
	}
	return nil
}

// runExternal is the full sort with spilling (Options.TempDir set).
func (s *sortOp) runExternal(keys []winKey, emit func(*Batch) error) error {
	e := s.e
	sp := &spill{e: e}
	for _, id := range s.in.cols() {
		sp.oids = append(sp.oids, e.md.Column(id).Type.OID)
	}
	defer sp.remove()
	var buf [][]types.Value
	// The rows held are charged to the sort's own share (as PostgreSQL's
	// work_mem is each operator's; spillpart.go's spillShare), with
	// memory.query, as the window's (winspill.go): a sort above a
	// spilling join (whose table and partition buffers hold
	// their own share while it emits) or another sort still has room to
	// make progress. Before, the sort took whatever the statement's
	// working memory had left, nothing while the join below held its
	// table, and failed with 53200.
	held := &memAcct{e: e}
	defer held.done()
	cmp := func(a, b []types.Value) int { return compareKeys(keys, a, b) }
	flush := func() error {
		slices.SortStableFunc(buf, cmp)
		err := sp.writeRun(buf)
		e.spillRuns++
		clear(buf)
		buf = buf[:0]
		held.done()
		return err
	}
	err := s.in.run(func(b *Batch) error {
		for i := 0; i < b.N; i++ {
			row := b.Row(i)
			n := rowBytes(row)
			if !held.tryGrowKeeping(n, 0) {
				if len(buf) == 0 {
					return e.grow("sort", n) // not even one row fits
				}
				if err := flush(); err != nil {
					return err
				}
				if !held.tryGrowKeeping(n, 0) {
					return e.grow("sort", n)
				}
			}
			buf = append(buf, row)
		}
		return e.check()
	})
	if errors.Is(err, errNoSpill) {
		return e.grow("sort", e.limit+1) // the working-memory refusal
	}
	if err != nil {
		return err
	}
	if len(sp.runs) == 0 {
		slices.SortStableFunc(buf, cmp)
		return e.emitRows(buf, len(s.in.cols()), emit)
	}
	if len(buf) > 0 {
		if err := flush(); err != nil {
			if errors.Is(err, errNoSpill) {
				return e.grow("sort", e.limit+1)
			}
			return err
		}
	}
	// Merge in passes until one pass can take every run.
	for len(sp.runs) > mergeFanIn {
		group := slices.Clone(sp.runs[:mergeFanIn])
		rest := slices.Clone(sp.runs[mergeFanIn:])
		sp.runs = nil
		var rows [][]types.Value
		// The merged run is written a batch at a time.
		writeChunk := func() error {
			err := sp.appendRows(rows)
			clear(rows)
			rows = rows[:0]
			return err
		}
		if err := sp.beginRun(); err != nil {
			return err
		}
		err := sp.merge(keys, group, func(r []types.Value) error {
			rows = append(rows, r)
			if len(rows) == BatchSize {
				return writeChunk()
			}
			return nil
		})
		if err == nil {
			err = writeChunk()
		}
		if err2 := sp.endRun(); err == nil {
			err = err2
		}
		if err != nil {
			return err
		}
		// The merged run holds the earliest input: it goes first.
		sp.runs = append(sp.runs, rest...)
	}
	out := make([][]types.Value, 0, BatchSize)
	err = sp.merge(keys, sp.runs, func(r []types.Value) error {
		out = append(out, r)
		if len(out) == BatchSize {
			err := e.emitRows(out, len(s.in.cols()), emit)
			out = out[:0]
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	return e.emitRows(out, len(s.in.cols()), emit)
}
