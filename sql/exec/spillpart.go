package exec

import (
	"bufio"
	"fmt"
	"os"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Grace partitioning. A hash aggregation, hash join build side, DISTINCT
// or set operation whose table would pass the statement's working memory
// (sidecar.work_mem, memory.query) writes the rows it cannot hold to
// partFanout temporary files chosen by the hash of their key, then
// answers each file on its own: rows of one key meet in one file, so a
// file's answer is the answer for its keys, and a file still too large
// is partitioned again with other hash bits (a new hasher). The files use
// the external sort's row encoding (extsort.go: types.Send per value,
// exact for every catalog type), live in a directory of the operator's
// own under Options.TempDir, count against Options.TempFileLimit (53400)
// and are removed when the operator ends: normally, on an error, on
// cancel. A value the encoding cannot carry, or a table still too large
// after maxSpillDepth levels, fails with 53200 as before.

// partFanout is the files one level of partitioning writes.
const partFanout = 16

// partBufBytes is one partition file's write buffer.
const partBufBytes = 4 << 10

// partReserve is the working memory a partitioning holds for its
// buffers (partFanout writers and a reader), charged when it starts.
const partReserve = (partFanout + 1) * partBufBytes

// maxSpillDepth bounds the levels of partitioning.
const maxSpillDepth = 6

// partFiles is rows spread over partFanout files (and, for rows that
// belong to no partition, one more: a join's NULL keys).
type partFiles struct {
	sp    *spill
	names []string
	files []*os.File
	ws    []*bufio.Writer
	rows  []int64
}

// newPartFiles starts n files of rows of the types oids for operator op.
func (e *env) newPartFiles(op string, oids []plan.OID, n int) (*partFiles, error) {
	p := &partFiles{sp: &spill{e: e, oids: oids, op: op}}
	if err := p.sp.mkdir(); err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		f, err := os.CreateTemp(p.sp.dir, "part-")
		if err != nil {
			p.remove()
			return nil, fmt.Errorf("%s: temporary file: %w", op, err)
		}
		p.names, p.files = append(p.names, f.Name()), append(p.files, f)
		p.ws = append(p.ws, bufio.NewWriterSize(f, partBufBytes))
	}
	p.rows = make([]int64, n)
	return p, nil
}

// add writes row to partition i.
func (p *partFiles) add(i int, row []types.Value) error {
	p.rows[i]++
	return p.sp.writeRow(p.ws[i], row)
}

// finish flushes and closes every file (they are then read).
func (p *partFiles) finish() error {
	var first error
	for i, f := range p.files {
		if f == nil {
			continue
		}
		err := p.ws[i].Flush()
		if err2 := f.Close(); err == nil {
			err = err2
		}
		p.files[i], p.ws[i] = nil, nil
		if err != nil && first == nil {
			first = fmt.Errorf("%s: writing a temporary file: %w", p.sp.what(), err)
		}
	}
	return first
}

// each reads partition i's rows in the order they were written.
func (p *partFiles) each(i int, fn func(row []types.Value) error) error {
	if p.rows[i] == 0 {
		return nil
	}
	r, err := p.sp.openSized(p.names[i], partBufBytes)
	if err != nil {
		return err
	}
	defer r.f.Close()
	for n := 0; ; n++ {
		if n%BatchSize == 0 {
			if err := p.sp.e.check(); err != nil {
				return err
			}
		}
		row, err := r.next()
		if err != nil || row == nil {
			return err
		}
		if err := fn(row); err != nil {
			return err
		}
	}
}

// remove deletes the files.
func (p *partFiles) remove() {
	for _, f := range p.files {
		if f != nil {
			f.Close()
		}
	}
	p.files = nil
	p.sp.remove()
}

// partOp reads one partition file back as an operator of columns cols.
type partOp struct {
	p      *partFiles
	i      int
	colIDs []plan.ColumnID
}

func (o *partOp) cols() []plan.ColumnID { return o.colIDs }

func (o *partOp) run(emit func(*Batch) error) error {
	var rows [][]types.Value
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		err := o.p.sp.e.emitRows(rows, len(o.colIDs), emit)
		rows = rows[:0]
		return err
	}
	err := o.p.each(o.i, func(row []types.Value) error {
		rows = append(rows, row)
		if len(rows) == BatchSize {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// oidsOfCols is the types of cols (any type: the encoding carries every
// catalog type; a value it cannot carry fails when written).
func (e *env) oidsOfCols(cols []plan.ColumnID) []plan.OID {
	out := make([]plan.OID, len(cols))
	for i, id := range cols {
		out[i] = e.md.Column(id).Type.OID
	}
	return out
}

// canSpill says whether operators may partition to temporary files: a
// temporary directory is set and an operator's share holds a few times
// its file buffers twice (less would spill every row, level after level).
func (e *env) canSpill() bool { return e.tempDir != "" && e.spillShare() >= 2*partReserve }

// spillShare is the memory one spillable operator may hold: the
// statement's working memory (sidecar.work_mem) per operator, as
// PostgreSQL's work_mem, and at most 1/spillShare of memory.query, which
// bounds every statement's operators together.
func (e *env) spillShare() int64 {
	share := e.limit
	if pl := e.acct.Limit(); pl > 0 {
		share = min(share, pl/spillShare)
	}
	return share
}

// spillShare: a spillable operator holds at most 1/spillShare of
// memory.query, so that the operators of one plan holding rows at once
// (a join's build side under an aggregation, a left-deep chain of build
// sides, several statements) each keep room to make progress and to
// open their files.
const spillShare = 4

// tryGrowKeeping charges n bytes to a spillable operator when n and keep
// more fit its share (keep: what starting to spill will need), reporting
// whether it did (e.spillShare: a spillable operator spills where a
// growing one would fail).
func (m *memAcct) tryGrowKeeping(n, keep int64) bool {
	e := m.e
	if m.n+n+keep > e.spillShare() {
		return false
	}
	if e.acct.Grow(n+keep) != nil {
		return false
	}
	e.acct.Shrink(keep)
	e.used += n
	m.n += n
	return true
}

// growReserve charges a spillable operator's file buffers (partReserve)
// to memory.query; like the rest of its share it is not held against
// the statement's total.
func (m *memAcct) growReserve(op string) error {
	e := m.e
	if err := e.acct.Grow(partReserve); err != nil {
		return &types.Error{Code: "53200", Message: "out of memory: " + op + " needs more working memory than memory.query leaves",
			Detail: err.Error()}
	}
	e.used += partReserve
	m.n += partReserve
	return nil
}

// spillRefusal is the 53200 of an operator that cannot spill what it
// would hold (a value the encoding cannot carry; too many levels).
func (e *env) spillRefusal(op string) error {
	return e.grow(op, e.limit+1)
}
