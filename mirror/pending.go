// Rows of a version whose commits are logged but not yet in a tree,
// read over the last group's tree without rewriting it (RowsAt).

package mirror

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/wal"
)

// pendingCache keeps, per table, the edits of the last version RowsAt
// read over a base tree, so that the readers of one version (HEAD, right
// after a restart) share one copy: each holds up to the group Open
// replayed. It is emptied when that group is flushed (flushRecovered),
// after which RowsAt no longer reads this way.
type pendingCache struct {
	mu   sync.Mutex
	m    map[string]*pendingEntry
	done bool // cleared for good: a read that began before keeps its own
}

type pendingEntry struct {
	group wal.LSN
	base  prolly.Root
	upTo  wal.LSN // the version's end LSN
	rows  *pendingRows
}

func (c *pendingCache) lookup(table string, group wal.LSN, base prolly.Root, upTo wal.LSN) *pendingRows {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[table]; e != nil && e.group == group && e.base == base && e.upTo == upTo {
		return e.rows
	}
	return nil
}

func (c *pendingCache) store(table string, group wal.LSN, base prolly.Root, upTo wal.LSN, rows *pendingRows) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return
	}
	if c.m == nil {
		c.m = map[string]*pendingEntry{}
	}
	c.m[table] = &pendingEntry{group: group, base: base, upTo: upTo, rows: rows}
}

func (c *pendingCache) clear() {
	c.mu.Lock()
	c.m, c.done = nil, true
	c.mu.Unlock()
}

// pendingRows is the final state of the keys some commits changed since
// a base tree: a value or a delete per key, in key order, and whether the
// base was truncated first (then it holds no row).
type pendingRows struct {
	truncated bool
	keys      []string // sorted
	edits     map[string]edit
}

func newPendingRows(s *editSet) *pendingRows {
	keys := make([]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return &pendingRows{truncated: s.truncated, keys: keys, edits: s.m}
}

// Pending says whether the tree's rows are Root plus edits held in
// memory (a RowsAt tree during recovery): Root alone is not the version.
func (t *Tree) Pending() bool { return t.pending != nil }

// Lookup returns the stored row under the encoded key key (valid until
// the tree's next read).
func (t *Tree) Lookup(ctx context.Context, key []byte) ([]byte, bool, error) {
	if p := t.pending; p != nil {
		if e, ok := p.edits[string(key)]; ok {
			return e.val, !e.del, nil
		}
		if p.truncated {
			return nil, false, nil
		}
	}
	return t.eng.Get(ctx, t.Root, key)
}

// RowCursor iterates rows in key order: *prolly.Cursor, or a tree's
// pending edits merged into its base's cursor.
type RowCursor interface {
	Next() bool
	Key() []byte
	Value() []byte
	Err() error
}

// Rows opens a cursor over the rows with start <= key < end (nil: open).
func (t *Tree) Rows(ctx context.Context, start, end []byte) (RowCursor, error) {
	p := t.pending
	if p == nil {
		return t.eng.Range(ctx, t.Root, start, end)
	}
	lo, hi := 0, len(p.keys)
	if start != nil {
		lo = sort.SearchStrings(p.keys, string(start))
	}
	if end != nil {
		hi = sort.SearchStrings(p.keys, string(end))
	}
	mc := &mergeCursor{keys: p.keys[lo:max(lo, hi)], edits: p.edits, fetch: true}
	if !p.truncated {
		c, err := t.eng.Range(ctx, t.Root, start, end)
		if err != nil {
			return nil, err
		}
		mc.base = c
	}
	return mc, nil
}

// mergeCursor merges sorted edits into a base cursor: an edited key's
// edit replaces the base row (a delete drops it). desc: the base and
// keys go from the largest key down (RowsDesc, pending_desc.go).
type mergeCursor struct {
	base     RowCursor // nil: the base holds no row (truncated)
	desc     bool
	has      bool // base is on a row not yet merged
	fetch    bool // base must move before its next row is looked at
	keys     []string
	edits    map[string]edit
	i        int
	key, val []byte
}

func (c *mergeCursor) Next() bool {
	for {
		if c.fetch {
			c.has = c.base != nil && c.base.Next()
			c.fetch = false
		}
		if c.i < len(c.keys) {
			k := c.keys[c.i]
			cmp := -1
			if c.has {
				cmp = strings.Compare(k, string(c.base.Key()))
				if c.desc {
					cmp = -cmp
				}
			}
			if cmp <= 0 {
				c.i++
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

func (c *mergeCursor) Key() []byte   { return c.key }
func (c *mergeCursor) Value() []byte { return c.val }

func (c *mergeCursor) Err() error {
	if c.base == nil {
		return nil
	}
	return c.base.Err()
}

// count is the base's row count plus what the edits add and remove: one
// base lookup per edited key (a truncated base counts the edits alone).
func (p *pendingRows) count(ctx context.Context, eng *prolly.Engine, base prolly.Root) (uint64, error) {
	var n int64
	if !p.truncated {
		c, err := eng.Count(ctx, base)
		if err != nil {
			return 0, err
		}
		n = int64(c)
	}
	for _, k := range p.keys {
		e := p.edits[k]
		inBase := false
		if !p.truncated {
			_, found, err := eng.Get(ctx, base, []byte(k))
			if err != nil {
				return 0, err
			}
			inBase = found
		}
		switch {
		case e.del && inBase:
			n--
		case !e.del && !inBase:
			n++
		}
	}
	return uint64(n), nil
}
