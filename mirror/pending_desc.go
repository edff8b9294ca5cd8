package mirror

import (
	"context"
	"sort"
	"strings"

	"github.com/sidecar-dev/sidecar/prolly"
)

// RowsDesc is Rows from the largest key down: the rows with start <=
// key < end (nil: open), the pending edits merged in the same way.
func (t *Tree) RowsDesc(ctx context.Context, start, end []byte) (RowCursor, error) {
	p := t.pending
	if p == nil {
		return t.eng.RangeDesc(ctx, t.Root, start, end)
	}
	lo, hi := 0, len(p.keys)
	if start != nil {
		lo = sort.SearchStrings(p.keys, string(start))
	}
	if end != nil {
		hi = sort.SearchStrings(p.keys, string(end))
	}
	mc := &mergeDescCursor{keys: p.keys[lo:max(lo, hi)], edits: p.edits, fetch: true}
	mc.i = len(mc.keys) - 1
	if !p.truncated {
		c, err := t.eng.RangeDesc(ctx, t.Root, start, end)
		if err != nil {
			return nil, err
		}
		mc.base = c
	}
	return mc, nil
}

// mergeDescCursor is mergeCursor from the largest key down.
type mergeDescCursor struct {
	base     *prolly.ReverseCursor // nil: the base holds no row (truncated)
	has      bool
	fetch    bool
	keys     []string
	edits    map[string]edit
	i        int // the next edit, going down
	key, val []byte
}

func (c *mergeDescCursor) Next() bool {
	for {
		if c.fetch {
			c.has = c.base != nil && c.base.Next()
			c.fetch = false
		}
		if c.i >= 0 {
			k := c.keys[c.i]
			cmp := 1
			if c.has {
				cmp = strings.Compare(k, string(c.base.Key()))
			}
			if cmp >= 0 {
				c.i--
				if cmp == 0 {
					c.fetch = true // the edit replaces this base row
				}
				e := c.edits[k]
				if e.del {
					continue
				}
				c.key, c.val = []byte(k), e.val
				return true
			}
		}
		if !c.has {
			return false
		}
		c.key, c.val = c.base.Key(), c.base.Value()
		c.fetch = true
		return true
	}
}

func (c *mergeDescCursor) Key() []byte   { return c.key }
func (c *mergeDescCursor) Value() []byte { return c.val }

func (c *mergeDescCursor) Err() error {
	if c.base == nil {
		return nil
	}
	return c.base.Err()
}
