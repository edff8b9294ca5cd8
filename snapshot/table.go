package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// Table is one table of a Snapshot: its relation at the snapshot's
// version and its rows there. Rows are vrow1 (rowenc) in the relation's
// column order; a row stored before columns were added has fewer values
// (read them as NULL).
type Table struct {
	Name  string        // canonical (public.accounts)
	Rel   *wal.Relation // the relation of the rows served
	Codec *rowenc.KeyCodec
	snap  *Snapshot

	// From the in-memory HEAD (heap != nil): the heap pinned at version
	// at and the model's table, whose gets and ranges answer while the
	// model still holds at (after that the tree answers, same rows).
	heap *heap.Snapshot
	head HeadTable
	at   wal.LSN

	mu     sync.Mutex
	tree   *Tree            // opened on first need when heap != nil
	ranges []*heap.Snapshot // SnapshotRange pins, released with the table
}

// FromHead says whether the table's rows come from the in-memory HEAD
// (typed column pages without a tree read).
func (t *Table) FromHead() bool { return t.heap != nil }

func (t *Table) release() {
	if t.heap != nil {
		t.heap.Release()
	}
	t.mu.Lock()
	for _, s := range t.ranges {
		s.Release()
	}
	t.ranges = nil
	t.mu.Unlock()
}

// treeOf returns the table's tree, opening it on first need; its relation
// must be the one served (the same version's rows are encoded with it).
func (t *Table) treeOf(ctx context.Context) (*Tree, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tree != nil {
		return t.tree, nil
	}
	tr, err := OpenRows(ctx, t.snap.st.Mirror, t.snap.Point(), t.Name)
	if err != nil {
		return nil, err
	}
	if !SameColumns(tr.Rel, t.Rel) {
		return nil, fmt.Errorf("snapshot of %s at %s: the tree's columns differ from the in-memory model's at the same version", t.Name, t.snap.LSN())
	}
	t.tree = tr
	return tr, nil
}

// SameColumns says whether a and b have the same columns (names, types,
// typmods) in the same order.
func SameColumns(a, b *wal.Relation) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || len(a.Columns) != len(b.Columns) {
		return false
	}
	for i, c := range a.Columns {
		d := b.Columns[i]
		if c.Name != d.Name || c.TypeOID != d.TypeOID || c.TypeMod != d.TypeMod || c.Key != d.Key {
			return false
		}
	}
	return true
}

// Get appends the row under the encoded primary key key to dst (found =
// false: no such row).
func (t *Table) Get(ctx context.Context, key, dst []byte) (row []byte, found bool, err error) {
	if t.heap != nil {
		row, found, served := t.head.HeadGet(key, t.at, dst)
		if served {
			return row, found, nil
		}
	}
	tr, err := t.treeOf(ctx)
	if err != nil {
		return dst, false, err
	}
	v, ok, err := tr.Lookup(ctx, key)
	if err != nil {
		return dst, false, fmt.Errorf("get %s at %s: %w", t.Name, t.snap.LSN(), err)
	}
	if !ok {
		return dst, false, nil
	}
	return append(dst, v...), true, nil
}

// headChunk is how many rows a range reads per lock of the model: the
// model's apply of the table waits while a chunk is copied, so chunks are
// short; each chunk is checked to be at the snapshot's version.
const headChunk = 4096

// Range calls fn for each row with key in [from, to) (nil: unbounded), in
// key order, at most limit rows (≤ 0: all), until fn returns an error
// (returned; ErrStop ends the range without one). Each row holds the
// values of columns cols in that order (nil: every column). key and row
// are valid only during fn. From the in-memory HEAD the rows are copied
// in chunks while it holds the version; if it moves on, the tree goes on
// from the last key sent.
func (t *Table) Range(ctx context.Context, from, to []byte, limit int, cols []int, fn func(key, row []byte) error) error {
	err := t.rangeOf(ctx, from, to, limit, cols, fn)
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// ErrStop, returned by a Range callback, ends the range without error.
var ErrStop = errors.New("snapshot: stop range")

func (t *Table) rangeOf(ctx context.Context, from, to []byte, limit int, cols []int, fn func(key, row []byte) error) error {
	n := 0
	if t.heap != nil {
		var keys, rows []byte
		var kends, rends []int
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			chunk := headChunk
			if limit > 0 {
				chunk = min(chunk, limit-n)
			}
			if kends == nil { // sized for the first chunk: a short range allocates once
				keys, rows = make([]byte, 0, chunk*16), make([]byte, 0, min(chunk*64, 1<<18))
				kends, rends = make([]int, 0, chunk), make([]int, 0, chunk)
			}
			keys, rows, kends, rends = keys[:0], rows[:0], kends[:0], rends[:0]
			served, err := t.head.HeadRange(from, to, chunk, t.at, cols, func(k, r []byte) bool {
				keys, rows = append(keys, k...), append(rows, r...)
				kends, rends = append(kends, len(keys)), append(rends, len(rows))
				return true
			})
			if err != nil {
				return fmt.Errorf("range of %s at %s: %w", t.Name, t.snap.LSN(), err)
			}
			if !served {
				break // the model moved on: the tree goes on from `from`
			}
			ko, ro := 0, 0
			for i := range kends {
				if err := fn(keys[ko:kends[i]], rows[ro:rends[i]]); err != nil {
					return err
				}
				ko, ro = kends[i], rends[i]
			}
			n += len(kends)
			if len(kends) < chunk || (limit > 0 && n >= limit) {
				return nil
			}
			from = append(bytes.Clone(keys[kendPrev(kends):ko]), 0) // the least key after the last
		}
	}
	tr, err := t.treeOf(ctx)
	if err != nil {
		return err
	}
	c, err := tr.Rows(ctx, from, to)
	if err != nil {
		return fmt.Errorf("range of %s at %s: %w", t.Name, t.snap.LSN(), err)
	}
	var buf []byte
	for (limit <= 0 || n < limit) && c.Next() {
		row := c.Value()
		if cols != nil {
			if buf, err = Project(buf[:0], row, cols); err != nil {
				return fmt.Errorf("range of %s: %w", t.Name, err)
			}
			row = buf
		}
		if err := fn(c.Key(), row); err != nil {
			return err
		}
		n++
	}
	if err := c.Err(); err != nil {
		return fmt.Errorf("range of %s at %s: %w", t.Name, t.snap.LSN(), err)
	}
	return nil
}

// kendPrev is the end of the key before the last one in ends (0 when the
// last is the first).
func kendPrev(ends []int) int {
	if len(ends) < 2 {
		return 0
	}
	return ends[len(ends)-2]
}

// Project appends to dst the vrow1 row holding row's values of columns
// cols in that order (a column the row lacks, stored before ADD COLUMN,
// is NULL).
func Project(dst, row []byte, cols []int) ([]byte, error) {
	for _, i := range cols {
		b, null, err := rowenc.Column(row, i)
		switch {
		case err != nil:
			return dst, fmt.Errorf("decode row: %w", err)
		case null:
			dst = rowenc.AppendNull(dst)
		default:
			dst = rowenc.AppendValue(dst, b)
		}
	}
	return dst, nil
}

// maxRangeIDs bounds the row ids a key range collects under the model's
// index lock; a wider range reads every page (zone maps still skip).
const maxRangeIDs = 1 << 18

// Pages is a table's rows as typed column pages (heap.Snapshot: one
// segment per column, zone maps per page): what a vectorized scan reads.
type Pages struct {
	Heap *heap.Snapshot // owned by the Table: do not Release it
	// Only, when set, is the rows the scan may return (a key range read
	// from the index): the scan touches only their pages and slots.
	Only *[]heap.RowID
}

// Pages returns the table's rows as typed column pages, narrowed to the
// primary-key range [from, to) (nil, nil: every row; the narrowing is a
// hint, the caller still filters). ok=false: the table is not held in the
// in-memory model at this version; read it from the tree (Range).
func (t *Table) Pages(from, to []byte) (p Pages, ok bool, err error) {
	if t.heap == nil {
		return Pages{}, false, nil
	}
	if from == nil && to == nil {
		return Pages{Heap: t.heap}, true, nil
	}
	s2, rel, ids, complete, err := t.snap.st.Head.SnapshotRange(t.Name, t.at, from, to, maxRangeIDs)
	if err != nil || !SameColumns(rel, t.Rel) {
		if s2 != nil {
			s2.Release()
		}
		return Pages{Heap: t.heap}, true, nil // the model moved on: the pinned pages, unnarrowed
	}
	t.mu.Lock()
	t.ranges = append(t.ranges, s2)
	t.mu.Unlock()
	if !complete {
		return Pages{Heap: s2}, true, nil
	}
	return Pages{Heap: s2, Only: &ids}, true, nil
}

// Tree is one table at one point of history with the engine that reads
// it.
type Tree struct {
	Table  string
	Root   prolly.Root
	Eng    *prolly.Engine
	Rel    *wal.Relation
	Codec  *rowenc.KeyCodec // nil: REPLICA IDENTITY FULL (key = whole row)
	Exists bool             // false: the table did not exist there (empty root)
	// rows, from OpenRows: the mirror's tree when the version's last
	// commits are not in a tree yet (mirror.Tree.Pending): Root is then
	// the base tree, and rows are read through Lookup and Rows only.
	rows *mirror.Tree
}

// Lookup returns the stored row under the encoded key (valid until the
// tree's next read).
func (t *Tree) Lookup(ctx context.Context, key []byte) ([]byte, bool, error) {
	if t.rows != nil {
		return t.rows.Lookup(ctx, key)
	}
	return t.Eng.Get(ctx, t.Root, key)
}

// Rows opens a cursor over the rows with start <= key < end (nil: open).
func (t *Tree) Rows(ctx context.Context, start, end []byte) (mirror.RowCursor, error) {
	if t.rows != nil {
		return t.rows.Rows(ctx, start, end)
	}
	return t.Eng.Range(ctx, t.Root, start, end)
}

// OpenRows is OpenTree for a reader of rows (Tree.Lookup, Tree.Rows):
// right after a restart, a version among the commits the mirror replayed
// from its log is read over the last group's tree without waiting for
// them to be flushed into it (mirror.RowsAt). Root and Eng are the
// version's only when Pending is false.
func OpenRows(ctx context.Context, m *mirror.Mirror, p refs.Point, table string) (*Tree, error) {
	return openTree(ctx, m, p, table, true)
}

// A version before the mirror's copy of table is refused
// (mirror.NotCopiedYetError), where OpenTree reads it as empty.
//
// Pending says whether the tree's rows are Root plus edits the mirror
// holds in memory (see OpenRows): Root and Eng alone are not the version.
func (t *Tree) Pending() bool { return t.rows != nil }

// OpenTree opens table (canonical name) at p: a branch's root, or the
// mirror's tree at the point's commit. A table that did not exist there
// reads as empty, with its current relation.
func OpenTree(ctx context.Context, m *mirror.Mirror, p refs.Point, table string) (*Tree, error) {
	return openTree(ctx, m, p, table, false)
}

func openTree(ctx context.Context, m *mirror.Mirror, p refs.Point, table string, rowsOnly bool) (*Tree, error) {
	info, err := LookupTable(m, table)
	if err != nil {
		return nil, err
	}
	if p.Branch != nil {
		// The branch's rows have the schema of the version it came from.
		rel, err := m.RelationAt(table, p.Branch.From)
		if err != nil {
			return nil, err
		}
		codec, err := KeyCodec(rel)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", table, err)
		}
		t := &Tree{Table: table, Eng: m.Engine(), Rel: rel, Codec: codec}
		t.Root, t.Exists = p.Branch.Root(table)
		if !t.Exists {
			t.Root = t.Eng.EmptyRoot()
		}
		return t, nil
	}
	at := m.TreeAt
	if rowsOnly {
		at = m.RowsAt
	}
	mt, err := at(ctx, table, p.LSN())
	var nc *mirror.NotCopiedYetError
	if rowsOnly && errors.As(err, &nc) {
		// A reader of rows (the SQL port, gets, scans) is refused: the
		// table may have existed on the server then, with rows the mirror
		// never saw, so an empty table would be a wrong answer. Diffs and
		// merges (OpenTree) still read it as empty: every row of its copy
		// shows as inserted after.
		return nil, err
	}
	if errors.Is(err, mirror.ErrUnknownTable) || errors.Is(err, mirror.ErrNoVersion) {
		codec, cerr := KeyCodec(info.Relation)
		if cerr != nil {
			return nil, fmt.Errorf("table %s: %w", table, cerr)
		}
		eng := m.Engine()
		return &Tree{Table: table, Root: eng.EmptyRoot(), Eng: eng, Rel: info.Relation, Codec: codec}, nil
	}
	if err != nil {
		return nil, err
	}
	t := &Tree{Table: table, Root: mt.Root, Eng: mt.Engine(), Rel: mt.Relation, Codec: mt.Codec, Exists: true}
	if mt.Pending() {
		t.rows = mt
	}
	return t, nil
}
