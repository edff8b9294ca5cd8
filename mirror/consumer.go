package mirror

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/wal"
)

// Derived consumers: structures kept beside the Prolly trees (a heap of
// row pages, a radix index, an external sink) that follow the mirror's
// committed state. The mirror owns the interface below and imports none of
// its implementations.
//
// What a consumer sees, in order, one Batch at a time:
//
//   - On Subscribe, a catch-up batch (BatchCatchUp) that brings it from
//     the Position it reports as durable to the mirror's head: per table
//     prolly.Diff(tree at its LSN, tree at the head), or the whole table
//     (Reset) when it has no state for it, its LSN was expired by
//     retention, or the table was copied again since (Position.CopiedAt
//     differs from TableBatch.CopiedAt).
//   - Then one BatchCommit per committed transaction, in commit order,
//     each with the transaction's final row states per table (sorted by
//     table, keys in order); a TRUNCATE inside the transaction shows as
//     Reset followed by the rows written after it.
//   - A BatchReset when a table's tree is replaced: its initial copy, a
//     resync after a schema change (the new Relation rides the batch), a
//     repair. The table's rows are then the whole new tree.
//
// A batch is delivered only once the mirror has made it durable, so a
// consumer is never ahead of the mirror after a crash. A batch is never
// split: after Apply returns nil, the consumer's tables equal the
// mirror's trees at Batch.LSN (TreeAt(table, Batch.LSN)) for every table
// it has seen.
//
// Back-pressure: the writer never waits for a consumer. Each subscription
// queues at most SubscribeOptions.QueueBytes of batches; when a consumer
// falls further behind, its queue is dropped and, once it has applied
// what it was given, it is brought forward with one catch-up batch (a
// tree diff from where it stands to the head), exactly as on start. A
// slow consumer thus costs tree reads, never apply throughput, and it
// holds back GC's sweep only while it reads.

// Consumer is a structure derived from the mirror's trees. Its methods
// are called from one goroutine per subscription, never concurrently.
type Consumer interface {
	// Durable returns the position of the last batch whose effect the
	// consumer has made durable: the zero Position when it has no state.
	// It is read once, by Subscribe, to bring the consumer forward.
	Durable() Position
	// Apply applies one batch. The batch and the edits it yields are
	// valid only during the call and must not be modified. The consumer
	// may persist whenever it likes; what it reports from Durable later
	// must be a position it applied whole (never half a batch). An error
	// stops the subscription (see Subscription.Err); the mirror goes on.
	Apply(ctx context.Context, b *Batch) error
}

// Position is what a consumer has applied: the mirror's trees at LSN, and
// per table the copy of the table it holds (TableBatch.CopiedAt of the
// last batch that had the table). A table whose CopiedAt differs from the
// mirror's was copied again since (a resync) and is sent whole.
type Position struct {
	LSN      wal.LSN
	CopiedAt map[string]wal.LSN
}

// BatchKind says why a batch was sent.
type BatchKind uint8

// Kinds of batch.
const (
	// BatchCommit is one committed transaction; Batch.Version describes it.
	BatchCommit BatchKind = iota + 1
	// BatchCatchUp brings a consumer from where it stood to the head (on
	// Subscribe, and after it fell behind its queue bound).
	BatchCatchUp
	// BatchReset replaces one table's rows with a new copy of the table.
	BatchReset
)

// String returns "commit", "catch-up" or "reset".
func (k BatchKind) String() string {
	switch k {
	case BatchCommit:
		return "commit"
	case BatchCatchUp:
		return "catch-up"
	case BatchReset:
		return "reset"
	}
	return fmt.Sprintf("BatchKind(%d)", uint8(k))
}

// Batch is one unit of delivery; see Consumer.
type Batch struct {
	Kind BatchKind
	// LSN is the version the consumer's tables equal once the batch is
	// applied. It never decreases from one batch to the next: a reset
	// carries the head's LSN at the time of the copy, the same as the
	// batch before it.
	LSN wal.LSN
	// Version is the transaction of a BatchCommit (nil otherwise).
	Version *Version
	// Tables are the tables the batch changes, sorted by name.
	Tables []TableBatch
}

// TableBatch is what one batch does to one table.
type TableBatch struct {
	// Table is the canonical name (Relation.QualifiedName).
	Table string
	// Relation is the schema of the table's rows after the batch.
	Relation *wal.Relation
	// CopiedAt identifies the copy of the table the rows belong to (the
	// LSN of the snapshot it was copied at); record it in Position.
	CopiedAt wal.LSN
	// Reset: drop every row of the table before applying Edits.
	Reset bool

	edits []logEdit      // a commit's edits, or
	eng   *prolly.Engine // a diff from → to read with eng
	from  prolly.Root
	to    prolly.Root
	built CopyBuild // the consumer's build from the copy's rows (copybuild.go)
}

// Edits calls fn with each edit of the table in key order: a row's new
// value, or its deletion. Key and Value alias memory that is valid only
// during fn. Large batches (catch-up, reset, a spilled transaction) are
// read from the trees as they are iterated.
func (t *TableBatch) Edits(ctx context.Context, fn func(prolly.Edit) error) error {
	if t.eng == nil {
		for _, e := range t.edits {
			if err := fn(prolly.Edit{Key: e.key, Value: e.val, Delete: e.del}); err != nil {
				return err
			}
		}
		return nil
	}
	d, err := t.eng.Diff(ctx, t.from, t.to, prolly.DiffOptions{})
	if err != nil {
		return fmt.Errorf("edits of %s: %w", t.Table, err)
	}
	for d.Next() {
		e := d.Entry()
		if err := fn(prolly.Edit{Key: e.Key, Value: e.To, Delete: e.Kind == prolly.Removed}); err != nil {
			return err
		}
	}
	if err := d.Err(); err != nil {
		return fmt.Errorf("edits of %s: %w", t.Table, err)
	}
	return nil
}

// DefaultQueueBytes is the default bound of a subscription's queue.
const DefaultQueueBytes = 64 << 20

// SubscribeOptions configure a subscription.
type SubscribeOptions struct {
	// QueueBytes bounds the batches queued for the consumer (default
	// DefaultQueueBytes); past it the consumer is caught up by a diff.
	QueueBytes int
}

// Subscription is one registered consumer. Close it before closing the
// mirror, or let Mirror.Close stop it.
type Subscription struct {
	m     *Mirror
	c     Consumer
	limit int

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	err    error // set before done is closed

	mu      sync.Mutex // under Mirror.mu when both are held
	queue   []*queued
	bytes   int
	lagging bool          // the queue was dropped: catch up
	busy    bool          // a batch taken from the queue is being applied
	wake    chan struct{} // buffered 1

	delivered  atomic.Uint64 // LSN of the last batch applied
	catchUps   atomic.Int64
	overflowed atomic.Int64
}

// queued is a batch waiting in a subscription's queue.
type queued struct {
	b     *Batch
	bytes int
	done  func() // releases the Reading that keeps b's roots from GC
	// built is the consumer's copy build b hands over, discarded when the
	// batch is dropped (or after Apply, when it was not taken).
	built CopyBuild
}

// subscriptions is the mirror's set of consumers.
type subscriptions struct {
	mu   sync.Mutex
	subs map[*Subscription]bool
	wg   sync.WaitGroup
	// list is the snapshot publish reads under Mirror.mu.
	list atomic.Pointer[[]*Subscription]
}

func (s *subscriptions) snapshot() []*Subscription {
	if p := s.list.Load(); p != nil {
		return *p
	}
	return nil
}

func (s *subscriptions) update() {
	l := make([]*Subscription, 0, len(s.subs))
	for sub := range s.subs {
		l = append(l, sub)
	}
	s.list.Store(&l)
}

// durableMoved wakes the subscriptions: batches up to the new durable LSN
// may be delivered. Called by the writer; it never blocks.
func (s *subscriptions) durableMoved() {
	for _, sub := range s.snapshot() {
		sub.poke()
	}
}

func (s *Subscription) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Subscribe registers c: a goroutine owned by the subscription brings it
// forward from c.Durable() to the head, then delivers every later batch.
func (m *Mirror) Subscribe(c Consumer, opts SubscribeOptions) (*Subscription, error) {
	if opts.QueueBytes <= 0 {
		opts.QueueBytes = DefaultQueueBytes
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return nil, fmt.Errorf("subscribe: %w", m.err)
	}
	s := &Subscription{m: m, c: c, limit: opts.QueueBytes, done: make(chan struct{}), wake: make(chan struct{}, 1),
		lagging: true} // the first thing it does is catch up
	// Not under m.ctx: Close lets subscriptions settle after it cancels
	// the mirror's background work, then stops them.
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(m.ctx))
	m.subs.mu.Lock()
	if m.subs.subs == nil {
		m.subs.subs = map[*Subscription]bool{}
	}
	m.subs.subs[s] = true
	m.subs.update()
	m.subs.wg.Add(1)
	m.subs.mu.Unlock()
	go s.run()
	return s, nil
}

// Done is closed when the subscription stops (Close, Mirror.Close, or an
// error of the consumer).
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err returns why the subscription stopped (nil while it runs, or after
// Close).
func (s *Subscription) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Delivered returns the LSN of the last batch the consumer applied.
func (s *Subscription) Delivered() wal.LSN { return wal.LSN(s.delivered.Load()) }

// Idle reports whether the consumer has applied every batch offered so
// far (nothing queued, applying or left to catch up).
func (s *Subscription) Idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.lagging && !s.busy && len(s.queue) == 0
}

// CatchUps returns how many catch-up batches were sent (the first one on
// Subscribe included), and Overflows how many times the queue was dropped
// because the consumer fell behind.
func (s *Subscription) CatchUps() int64  { return s.catchUps.Load() }
func (s *Subscription) Overflows() int64 { return s.overflowed.Load() }

// Close stops the subscription and waits for its goroutine.
func (s *Subscription) Close() error {
	s.cancel()
	<-s.done
	if errors.Is(s.err, context.Canceled) {
		return nil
	}
	return s.err
}

func (s *Subscription) run() {
	defer s.m.subs.wg.Done()
	err := s.loop()
	s.m.subs.mu.Lock()
	delete(s.m.subs.subs, s)
	s.m.subs.update()
	s.m.subs.mu.Unlock()
	s.mu.Lock()
	s.dropLocked()
	s.mu.Unlock()
	if err != nil && !errors.Is(err, context.Canceled) {
		s.m.log.Error("consumer stopped", "err", err)
	}
	s.err = err
	close(s.done)
}

// loop delivers until the subscription is cancelled or the consumer fails.
func (s *Subscription) loop() error {
	pos := s.c.Durable()
	for {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		s.mu.Lock()
		lag := s.lagging
		var q *queued
		if !lag && len(s.queue) > 0 && s.queue[0].b.LSN <= s.m.Durable() {
			q = s.queue[0]
			s.queue[0] = nil
			s.queue = s.queue[1:]
			s.bytes -= q.bytes
			s.busy = true
		}
		s.mu.Unlock()
		switch {
		case lag:
			var err error
			if pos, err = s.catchUp(pos); err != nil {
				return err
			}
			s.resends(&pos)
		case q != nil:
			err := s.c.Apply(s.ctx, q.b)
			if q.done != nil {
				q.done()
			}
			if q.built != nil {
				q.built.Discard()
			}
			s.mu.Lock()
			s.busy = false
			s.mu.Unlock()
			if err != nil {
				return fmt.Errorf("consumer: apply %s batch at %s: %w", q.b.Kind, q.b.LSN, err)
			}
			pos.LSN = q.b.LSN
			pos.CopiedAt = copiedAfter(pos.CopiedAt, q.b)
			s.delivered.Store(uint64(q.b.LSN))
			s.resends(&pos)
		default:
			s.caughtUp()
			select {
			case <-s.ctx.Done():
				return s.ctx.Err()
			case <-s.wake:
			}
		}
	}
}

// Resender is implemented by a consumer that may stop holding a table
// and later want it whole again: the in-memory HEAD declines a table
// with a key too long for its index, and asks for it once no such key is
// left (head/decline.go). After each batch the subscription takes the
// names and brings the consumer to the head by a catch-up that sends
// those tables whole (the others by a diff, nothing of them rebuilt).
type Resender interface {
	TakeResends() []string
}

// resends makes the next step a catch-up that sends the tables the
// consumer asks for whole (Resender), when it asks for any.
func (s *Subscription) resends(pos *Position) {
	r, ok := s.c.(Resender)
	if !ok {
		return
	}
	names := r.TakeResends()
	if len(names) == 0 {
		return
	}
	for _, n := range names {
		delete(pos.CopiedAt, n)
	}
	s.mu.Lock()
	s.dropLocked()
	s.lagging = true
	s.mu.Unlock()
}

// CaughtUp is implemented by a consumer that wants to know how far it is
// current when no batch is waiting: CaughtUp(lsn) means every batch with
// LSN ≤ lsn was applied, so the consumer's tables equal the mirror's
// trees at every version from its last batch up to lsn (not only at the
// last batch's LSN). The head model needs it: after an initial copy with
// no commit, HEAD resolves to the copy's LSN, past the reset batch's LSN,
// and no batch ever reaches it until the first commit. It is called from
// the subscription's goroutine, never concurrently with Apply, with
// non-decreasing LSNs.
type CaughtUp interface {
	CaughtUp(lsn wal.LSN)
}

// caughtUp tells the consumer, when it implements CaughtUp and nothing is
// queued for it, that it is current up to the mirror's durable LSN.
// Durable is read before the queue is looked at: every commit durable at
// that LSN was offered (publishCommit, at apply) before it became
// durable, so an empty, non-lagging queue then means all of them were
// applied.
func (s *Subscription) caughtUp() {
	c, ok := s.c.(CaughtUp)
	if !ok {
		return
	}
	d := s.m.Durable()
	s.mu.Lock()
	idle := !s.lagging && len(s.queue) == 0
	s.mu.Unlock()
	if idle {
		c.CaughtUp(d)
	}
}

// copiedAfter returns the per-table copies held after b.
func copiedAfter(c map[string]wal.LSN, b *Batch) map[string]wal.LSN {
	if c == nil {
		c = map[string]wal.LSN{}
	}
	for _, t := range b.Tables {
		c[t.Table] = t.CopiedAt
	}
	return c
}

// catchUp brings the consumer from pos to the head in one batch and
// returns its new position. From the moment it reads the head, later
// batches queue behind it.
func (s *Subscription) catchUp(pos Position) (Position, error) {
	m := s.m
	// Registered before any version is resolved: a GC that expires pos
	// meanwhile waits for this read before sweeping its nodes.
	done := m.Reading()
	defer done()
	m.mu.Lock()
	if m.err != nil {
		err := m.err
		m.mu.Unlock()
		return pos, err
	}
	s.mu.Lock()
	s.dropLocked()
	s.lagging, s.busy = false, true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.busy = false
		s.mu.Unlock()
	}()
	head := m.head.EndLSN
	type tinfo struct {
		name     string
		copiedAt wal.LSN
	}
	var tables []tinfo
	for name, t := range m.tables {
		if m.follow == nil || m.follow[name] {
			tables = append(tables, tinfo{name, t.rec.CopiedAt})
		}
	}
	m.mu.Unlock()
	slices.SortFunc(tables, func(a, b tinfo) int {
		if a.name < b.name {
			return -1
		}
		if a.name > b.name {
			return 1
		}
		return 0
	})
	// The head is queued for the writer already; delivered once durable.
	if err := s.waitDurable(head); err != nil {
		return pos, err
	}
	b := &Batch{Kind: BatchCatchUp, LSN: head}
	for _, ti := range tables {
		to, err := m.storedTreeAt(s.ctx, ti.name, head)
		if errors.Is(err, ErrUnknownTable) || errors.Is(err, ErrNoVersion) {
			continue // not copied yet: its reset comes as a batch
		}
		if err != nil {
			return pos, fmt.Errorf("consumer catch-up to %s: %w", head, err)
		}
		tb := TableBatch{Table: ti.name, Relation: to.Relation, CopiedAt: ti.copiedAt}
		had, ok := pos.CopiedAt[ti.name]
		var from *Tree
		if ok && had == ti.copiedAt && pos.LSN <= head {
			from, err = m.storedTreeAt(s.ctx, ti.name, pos.LSN)
			if err != nil && !errors.Is(err, ErrExpired) && !errors.Is(err, ErrUnknownTable) && !errors.Is(err, ErrNoVersion) {
				return pos, fmt.Errorf("consumer catch-up from %s: %w", pos.LSN, err)
			}
		}
		if from == nil {
			tb.Reset = true
			tb.eng, tb.from, tb.to = to.eng, to.eng.EmptyRoot(), to.Root
		} else {
			if from.Root == to.Root {
				continue
			}
			eng, err := unionEngine(m, from.eng, to.eng)
			if err != nil {
				return pos, err
			}
			tb.eng, tb.from, tb.to = eng, from.Root, to.Root
		}
		b.Tables = append(b.Tables, tb)
	}
	s.catchUps.Add(1)
	if err := s.c.Apply(s.ctx, b); err != nil {
		return pos, fmt.Errorf("consumer: apply catch-up batch at %s: %w", head, err)
	}
	np := Position{LSN: head, CopiedAt: map[string]wal.LSN{}}
	for _, ti := range tables {
		if c, ok := pos.CopiedAt[ti.name]; ok {
			np.CopiedAt[ti.name] = c
		}
	}
	np.CopiedAt = copiedAfter(np.CopiedAt, b)
	s.delivered.Store(uint64(head))
	return np, nil
}

// waitDurable waits until the mirror's durable LSN reaches lsn.
func (s *Subscription) waitDurable(lsn wal.LSN) error {
	for s.m.Durable() < lsn {
		select {
		case <-s.ctx.Done():
			return s.ctx.Err()
		case <-s.wake:
		}
	}
	// A wake-up consumed here may have been meant for the queue.
	s.poke()
	return nil
}

// dropLocked empties the queue. The caller holds s.mu.
func (s *Subscription) dropLocked() {
	for _, q := range s.queue {
		if q.done != nil {
			q.done()
		}
		if q.built != nil {
			q.built.Discard()
		}
	}
	s.queue, s.bytes = nil, 0
}

// offer queues b (bytes large) unless the subscription is lagging, in
// which case its catch-up will cover b. Called under Mirror.mu; never
// blocks.
func (s *Subscription) offer(b *Batch, bytes int, reads bool) {
	s.offerBuilt(b, bytes, reads, nil)
}

// offerBuilt is offer of a batch that hands over built (nil: none),
// which is discarded when the batch is not queued.
func (s *Subscription) offerBuilt(b *Batch, bytes int, reads bool, built CopyBuild) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lagging {
		if built != nil {
			built.Discard()
		}
		return
	}
	if s.bytes+bytes > s.limit && len(s.queue) > 0 {
		s.dropLocked()
		s.lagging = true
		s.overflowed.Add(1)
		s.poke()
		if built != nil {
			built.Discard()
		}
		return
	}
	q := &queued{b: b, bytes: bytes, built: built}
	if reads {
		q.done = s.m.Reading()
	}
	s.queue = append(s.queue, q)
	s.bytes += bytes
	s.poke()
}

// batchOverhead is what a queued batch counts beyond its edits' bytes.
const batchOverhead = 256

// publishCommit offers the commit v to every subscription: its logged
// edits, or for a spilled commit (recs: the tables' new records) a diff of
// each changed table's tree. The caller holds mu, before the table
// records change.
func (m *Mirror) publishCommit(v *Version, tables []logTable, recs map[string]tableRecord) {
	subs := m.subs.snapshot()
	if len(subs) == 0 {
		return
	}
	b := &Batch{Kind: BatchCommit, LSN: v.EndLSN, Version: v}
	bytes := batchOverhead
	for _, lt := range tables {
		t := m.tables[lt.change.Table]
		tb := TableBatch{Table: lt.change.Table, Relation: t.rec.Rel, CopiedAt: t.rec.CopiedAt, Reset: lt.change.Truncated}
		if recs != nil {
			tb.eng, tb.from, tb.to = m.eng, t.rec.Root, recs[lt.change.Table].Root
			if lt.change.Truncated {
				tb.from = m.eng.EmptyRoot()
			}
		} else {
			tb.edits = lt.edits
			for _, e := range lt.edits {
				bytes += len(e.key) + len(e.val) + 32
			}
		}
		b.Tables = append(b.Tables, tb)
	}
	for _, s := range subs {
		s.offer(b, bytes, recs != nil)
	}
}

// publishReset offers the replacement of table's tree by root (a copy at
// copiedAt, recorded at the head end) to every subscription; one whose
// consumer built the table from the copy's rows (bs, whose root is the
// recorded one) gets its build handed over in a batch of its own, with no
// edits. The caller holds mu.
func (m *Mirror) publishReset(end wal.LSN, rec tableRecord, bs copyBuilds) {
	subs := m.subs.snapshot()
	if len(subs) == 0 {
		return
	}
	tb := TableBatch{Table: rec.Name, Relation: rec.Rel, CopiedAt: rec.CopiedAt,
		Reset: true, eng: m.eng, from: m.eng.EmptyRoot(), to: rec.Root}
	b := &Batch{Kind: BatchReset, LSN: end, Tables: []TableBatch{tb}}
	for _, s := range subs {
		if built := bs[s]; built != nil {
			delete(bs, s)
			own := tb
			own.from, own.built = rec.Root, built
			s.offerBuilt(&Batch{Kind: BatchReset, LSN: end, Tables: []TableBatch{own}}, batchOverhead, true, built)
			continue
		}
		s.offer(b, batchOverhead, true)
	}
}

// stopSubscriptions cancels every subscription and waits for them
// (Mirror.Close). With settle, it first lets them apply everything
// durable, until ctx ends.
func (m *Mirror) stopSubscriptions(ctx context.Context, settle bool) {
	if settle {
		m.settleSubscriptions(ctx)
	}
	m.subs.mu.Lock()
	for s := range m.subs.subs {
		s.cancel()
	}
	m.subs.mu.Unlock()
	m.subs.wg.Wait()
}

// settleSubscriptions waits until every subscription has applied the
// durable head, or ctx ends.
func (m *Mirror) settleSubscriptions(ctx context.Context) {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		settled := true
		head := m.Durable()
		for _, s := range m.subs.snapshot() {
			if s.Err() == nil && (!s.Idle() || s.Delivered() < min(head, m.Head().EndLSN)) {
				settled = false
			}
		}
		if settled {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// unionEngine returns an engine that reads the nodes of both engines'
// stores: two trees materialised by TreeAt (each in its own in-memory
// overlay over the node store) can then be diffed. Nodes are content
// addressed, so any store holding an address holds the same node.
func unionEngine(m *Mirror, a, b *prolly.Engine) (*prolly.Engine, error) {
	var ovs []*overlay
	for _, e := range []*prolly.Engine{a, b} {
		if ov, ok := e.Store().(*overlay); ok {
			ovs = append(ovs, ov)
		}
	}
	if len(ovs) == 0 {
		return m.eng, nil
	}
	spec, rh := Spec(m.opts.RowHash)
	eng, err := prolly.NewEngine(&unionStore{ovs: ovs, base: m.ns}, spec, rh)
	if err != nil {
		return nil, fmt.Errorf("consumer catch-up: %w", err)
	}
	return eng, nil
}

// unionStore reads the overlays' nodes, then the base store's. It is
// read-only: diffs never write.
type unionStore struct {
	ovs  []*overlay
	base prolly.NodeStore
}

func (u *unionStore) mem(h prolly.Hash) (*prolly.Node, bool) {
	for _, ov := range u.ovs {
		if n, ok := ov.lookup(h); ok {
			return n, true
		}
	}
	return nil, false
}

func (u *unionStore) Get(ctx context.Context, h prolly.Hash) (*prolly.Node, error) {
	if n, ok := u.mem(h); ok {
		return n, nil
	}
	return u.base.Get(ctx, h)
}

func (u *unionStore) GetMany(ctx context.Context, hs []prolly.Hash) ([]*prolly.Node, error) {
	return getManyThrough(ctx, hs, u.mem, u.base)
}

func (u *unionStore) Put(context.Context, prolly.Hash, []byte, *prolly.Node) error {
	return errors.New("consumer catch-up: the union store is read-only")
}

func (u *unionStore) Flush(context.Context) error { return nil }
