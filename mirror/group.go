package mirror

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/wal"
)

// edit is a row's pending final state: a value, or deleted.
type edit struct {
	val []byte
	del bool
}

// editSet is the pending state of one table over a base tree: keys
// changed since the base, and whether the base was truncated first.
type editSet struct {
	truncated bool
	m         map[string]edit
	bytes     int64
}

func newEditSet() *editSet { return &editSet{m: map[string]edit{}} }

func (s *editSet) put(key string, e edit) {
	if old, ok := s.m[key]; ok {
		s.bytes -= int64(len(key) + len(old.val))
	}
	s.m[key] = e
	s.bytes += int64(len(key) + len(e.val))
}

func (s *editSet) truncate() {
	s.truncated = true
	clear(s.m)
	s.bytes = 0
}

// lookup reports the pending state of key: known is false when the base
// tree decides.
func (s *editSet) lookup(key []byte) (val []byte, found, known bool) {
	if e, ok := s.m[string(key)]; ok {
		return e.val, !e.del, true
	}
	if s.truncated {
		return nil, false, true
	}
	return nil, false, false
}

// sorted returns the edits as a Mutate batch in key order. Deletes are
// dropped when the base is truncated (nothing to delete).
func (s *editSet) sorted() []prolly.Edit {
	keys := make([]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]prolly.Edit, 0, len(keys))
	for _, k := range keys {
		e := s.m[k]
		if e.del && s.truncated {
			continue
		}
		out = append(out, prolly.Edit{Key: []byte(k), Value: e.val, Delete: e.del})
	}
	return out
}

// apply mutates base with the set's edits.
func (s *editSet) apply(ctx context.Context, eng *prolly.Engine, base prolly.Root) (prolly.Root, error) {
	if s.truncated {
		base = eng.EmptyRoot()
	}
	edits := s.sorted()
	if len(edits) == 0 {
		return base, nil // the empty root when truncated: served by every engine
	}
	return eng.Mutate(ctx, base, edits)
}

// group is the set of commits applied since the last group record: their
// log records are durable, their effect on the trees is pending here.
type group struct {
	tables  map[string]*editSet
	commits int
	rows    int
	bytes   int64
	started time.Time
	last    wal.LSN
}

func (g *group) reset() {
	g.tables = map[string]*editSet{}
	g.commits, g.rows, g.bytes = 0, 0, 0
	g.last = 0
}

// add merges one commit's log into the group.
func (g *group) add(tables []logTable, end wal.LSN) {
	if g.commits == 0 {
		g.started = time.Now()
	}
	g.commits++
	g.last = end
	for _, lt := range tables {
		s := g.tables[lt.change.Table]
		if s == nil {
			s = newEditSet()
			g.tables[lt.change.Table] = s
		}
		before := s.bytes
		if lt.change.Truncated {
			s.truncate()
		}
		for _, e := range lt.edits {
			s.put(string(e.key), edit{val: e.val, del: e.del})
		}
		g.rows += len(lt.edits)
		g.bytes += s.bytes - before
	}
}

func (g *group) full(o *Options) bool {
	return g.commits >= o.GroupMaxCommits || g.rows >= o.GroupMaxRows || g.bytes >= o.GroupMaxBytes ||
		(g.commits > 0 && time.Since(g.started) >= o.GroupMaxAge)
}

// flushState is a group being applied to the trees in the background.
type flushState struct {
	g     group
	bases map[string]prolly.Root
	done  chan struct{}
	roots map[string]groupRoot // set before done is closed
	err   error
	start time.Time
}

// flushGroup applies the pending group (and one in flight) to the trees
// and queues their group records, returning when done. The caller holds
// mu.
func (m *Mirror) flushGroup(ctx context.Context) error {
	if err := m.startFlush(); err != nil {
		return err
	}
	return m.waitFlush()
}

// startFlush freezes the pending group and applies it to the trees in a
// goroutine, so apply goes on meanwhile: lookups see the frozen group
// between the new pending group and the trees. At most one group is in
// flight; a second waits for the first. The caller holds mu.
//
// Order: Mutate every changed tree (new nodes are Put), Flush the node
// store (the nodes are in Badger); then, back under mu (finishFlush),
// queue one atomic write of the group record and every table record,
// behind the log records of the group's commits. A crash before it is
// written leaves the previous group record and the log: Open replays the
// same commits again. The group record need not be synced on its own:
// until it is, the log still holds its commits.
func (m *Mirror) startFlush() error {
	if err := m.waitFlush(); err != nil {
		return err
	}
	if m.group.commits == 0 {
		return nil
	}
	fs := &flushState{g: m.group, bases: map[string]prolly.Root{}, done: make(chan struct{}), start: time.Now()}
	for name := range fs.g.tables {
		t := m.tables[name]
		if t == nil {
			return fmt.Errorf("flush group %s: changes to unknown table %s", fs.g.last, name)
		}
		fs.bases[name] = t.rec.Root
	}
	m.group.reset()
	m.flushing = fs
	m.flushWG.Add(1)
	go func() {
		defer m.flushWG.Done()
		defer close(fs.done)
		if m.testFlushDelay > 0 { // until Close, at the longest
			select {
			case <-time.After(m.testFlushDelay):
			case <-m.ctx.Done():
			}
		}
		fs.roots, fs.err = m.applyGroup(context.WithoutCancel(m.ctx), &fs.g, fs.bases)
	}()
	return nil
}

// applyGroup mutates each base with the group's edits and flushes the
// nodes. It touches no mirror state: it runs without mu.
func (m *Mirror) applyGroup(ctx context.Context, g *group, bases map[string]prolly.Root) (map[string]groupRoot, error) {
	roots := map[string]groupRoot{}
	for name, s := range g.tables {
		r, err := s.apply(ctx, m.eng, bases[name])
		if err != nil {
			return nil, fmt.Errorf("flush group %s: table %s: %w", g.last, name, err)
		}
		n, err := m.eng.Count(ctx, r)
		if err != nil {
			return nil, fmt.Errorf("flush group %s: count %s: %w", g.last, name, err)
		}
		roots[name] = groupRoot{Root: r, Rows: n}
	}
	if err := m.ns.Flush(ctx); err != nil {
		return nil, fmt.Errorf("flush group %s: %w", g.last, err)
	}
	if m.opts.StrictChecks {
		for name, r := range roots {
			if err := m.eng.Check(ctx, r.Root); err != nil {
				return nil, fmt.Errorf("flush group %s: strict check of %s: %w", g.last, name, err)
			}
			m.stats.treeChecks.Add(1)
		}
	}
	return roots, nil
}

// waitFlush waits for the group in flight, if any, and finishes it. The
// caller holds mu (the flush goroutine never takes it).
func (m *Mirror) waitFlush() error {
	if m.flushing == nil {
		return nil
	}
	<-m.flushing.done
	return m.finishFlush()
}

// reapFlush finishes the group in flight if it is done, without waiting.
func (m *Mirror) reapFlush() error {
	if m.flushing == nil {
		return nil
	}
	select {
	case <-m.flushing.done:
		return m.finishFlush()
	default:
		return nil
	}
}

// finishFlush records a completed flush: new roots in memory, and the
// group record with the table records (their current state, new roots)
// queued as one write. The caller holds mu.
func (m *Mirror) finishFlush() error {
	fs := m.flushing
	m.flushing = nil
	if fs.err != nil {
		return fs.err
	}
	end := fs.g.last
	recs := map[string]tableRecord{}
	for name, t := range m.tables {
		rec := t.rec
		if r, ok := fs.roots[name]; ok {
			// INVARIANT: no table's tree is replaced while its group is
			// in flight (TableCopied flushes first).
			if rec.Root != fs.bases[name] {
				return fmt.Errorf("flush group %s: table %s changed root while its group was applied", end, name)
			}
			rec.Root, rec.Rows = r.Root, r.Rows
		}
		recs[name] = rec
	}
	op := &writeOp{}
	m.groupOp(end, recs, op)
	if err := m.enqueue(op); err != nil {
		return fmt.Errorf("flush group %s: %w", end, err)
	}
	for name, rec := range recs {
		m.tables[name].rec = rec
	}
	m.lastGroup = end
	m.stats.groups.Add(1)
	m.stats.groupRows.Add(int64(fs.g.rows))
	took := time.Since(fs.start)
	if m.opts.OnGroupFlush != nil {
		m.opts.OnGroupFlush(took)
	}
	m.log.Debug("group flushed", "end", end, "commits", fs.g.commits, "rows", fs.g.rows, "took", took)
	return nil
}

// groupOp adds to op the group record at end naming recs' roots and the
// table records: one atomic write.
func (m *Mirror) groupOp(end wal.LSN, recs map[string]tableRecord, op *writeOp) {
	g := &groupRecord{End: end, Roots: map[string]groupRoot{}}
	names := make([]string, 0, len(recs))
	for name, rec := range recs {
		names = append(names, name)
		g.Roots[name] = groupRoot{Root: rec.Root, Rows: rec.Rows}
	}
	slices.Sort(names)
	m.noteRoots(recs)
	gv := g.encode(names)
	m.stats.bytesCatalog.Add(int64(len(gv)))
	op.set(groupKey(end), gv)
	for _, name := range names {
		rec := recs[name]
		v := rec.encode()
		m.stats.bytesCatalog.Add(int64(len(v)))
		op.set(tableKey(name), v)
	}
}
