package snapshot

import (
	"context"
	"errors"
	"fmt"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/wal"
)

// OrderedHead is a Head that hands the row ids of a key range in key
// order, a chunk at a time (head.Model.KeyIDs): max ids of [from, to),
// from the largest key down when desc, with a snapshot of the heap they
// name, the last key collected and whether keys remain past it.
type OrderedHead interface {
	KeyIDs(table string, at wal.LSN, from, to []byte, max int, desc bool) (snap *heap.Snapshot, rel *wal.Relation, ids []heap.RowID, last []byte, more bool, err error)
}

// maxOrderedChunk bounds the ids one chunk of a key-order read collects
// under the model's index lock.
const maxOrderedChunk = 1 << 14

// KeyOrdered reads the rows with key in [from, to) (nil: unbounded) in
// key order — from the largest key down when desc — until the range ends
// or a callback returns an error (returned; ErrStop ends the read without
// one). It reads in chunks, the first of first rows (≤ 0: one), each next
// one four times larger up to maxOrderedChunk, so a reader that stops
// after n rows read O(n) of them: an ORDER BY on the key under a LIMIT.
//
// From the in-memory HEAD, while it holds the version, each chunk is
// handed to pages as the heap's pages with Only the chunk's row ids, in
// key order (a typed decode, as Pages); once the model moves on, and for
// a table only the tree holds, the rest comes to rows from the tree (each
// row holding the values of columns cols, nil: every column; key and row
// valid only during the call).
func (t *Table) KeyOrdered(ctx context.Context, from, to []byte, desc bool, first int, cols []int, pages func(Pages) error, rows func(key, row []byte) error) error {
	err := t.keyOrdered(ctx, from, to, desc, first, cols, pages, rows)
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

func (t *Table) keyOrdered(ctx context.Context, from, to []byte, desc bool, first int, cols []int, pages func(Pages) error, rows func(key, row []byte) error) error {
	n := max(first, 1)
	if oh, ok := t.snap.st.Head.(OrderedHead); ok && t.heap != nil {
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			s2, rel, ids, last, more, err := oh.KeyIDs(t.Name, t.at, from, to, n, desc)
			if err != nil || !SameColumns(rel, t.Rel) {
				if s2 != nil {
					s2.Release()
				}
				break // the model moved on: the tree goes on from here
			}
			err = pages(Pages{Heap: s2, Only: &ids})
			s2.Release()
			if err != nil || !more {
				return err
			}
			if desc {
				to = last
			} else {
				from = append(last, 0) // the least key after last
			}
			n = min(n*4, maxOrderedChunk)
		}
	}
	tr, err := t.treeOf(ctx)
	if err != nil {
		return err
	}
	var c mirror.RowCursor
	if desc {
		c, err = tr.RowsDesc(ctx, from, to)
	} else {
		c, err = tr.Rows(ctx, from, to)
	}
	if err != nil {
		return fmt.Errorf("key-order read of %s at %s: %w", t.Name, t.snap.LSN(), err)
	}
	var buf []byte
	for c.Next() {
		row := c.Value()
		if cols != nil {
			if buf, err = Project(buf[:0], row, cols); err != nil {
				return fmt.Errorf("key-order read of %s: %w", t.Name, err)
			}
			row = buf
		}
		if err := rows(c.Key(), row); err != nil {
			return err
		}
	}
	if err := c.Err(); err != nil {
		return fmt.Errorf("key-order read of %s at %s: %w", t.Name, t.snap.LSN(), err)
	}
	return nil
}

// RowsDesc opens a cursor over the rows with start <= key < end (nil:
// open), from the largest key down.
func (t *Tree) RowsDesc(ctx context.Context, start, end []byte) (mirror.RowCursor, error) {
	if t.rows != nil {
		return t.rows.RowsDesc(ctx, start, end)
	}
	return t.Eng.RangeDesc(ctx, t.Root, start, end)
}
