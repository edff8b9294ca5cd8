package remote

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// UploaderOptions configure an Uploader.
type UploaderOptions struct {
	Mirror *mirror.Mirror
	DB     *store.DB
	Writer *Writer
	Store  *Store // knows the manifest's packs (AddPacks) before the first upload
	Logger *slog.Logger
	// Interval is the longest time between uploads when no group was
	// flushed (tags and branches change without one); default 10 s.
	Interval time.Duration
	// PackBytes cuts an upload into several packs past this many queued
	// node bytes, bounding its memory (default 128 MiB).
	PackBytes int64
	// GCInterval is the least time between two remote GC passes, each run
	// after an upload on the upload goroutine (default 10 min; < 0: never).
	GCInterval time.Duration
	// GC configures those passes (Local defaults to the mirror's store).
	GC GCOptions
}

// Uploader copies a sidecar's new history to the remote after each commit
// group: the nodes of every retained root not yet in a pack (walked from
// the roots, skipping subtrees already remote, so work follows the change)
// as one pack, the records changed since the last upload as one segment,
// then the manifest by CAS with the new remote-durable LSN: three PUTs.
// Uploads run one at a time on the goroutine of Run; Kick asks for one.
type Uploader struct {
	o     UploaderOptions
	kick  chan struct{}
	since uint64 // store version of the last segment's snapshot
	// sinceStore is the store the last segment's versions count; the
	// first upload compares it with this store's identity (storeID).
	sinceStore string
	storeID    string
	// uncommitted are packs uploaded by an upload whose manifest commit
	// failed: their nodes count as remote (Store.Contains), so the next
	// commit must name them.
	uncommitted []PackRef

	durable    atomic.Uint64 // remote-durable LSN
	settled    atomic.Uint64 // manifest's Settled
	wantSettle atomic.Uint64 // asked for by Settle
	uploads    atomic.Int64
	failures   atomic.Int64
	pending    atomic.Int64 // group flushes not yet covered by an upload
	lastErr    atomic.Pointer[string]
	lastTook   atomic.Int64 // ns
	lastPuts   atomic.Int64
	lastAt     atomic.Int64  // unix ns of the last successful upload
	lastGC     time.Time     // upload goroutine only
	changed    chan struct{} // closed and replaced at every durable advance
	changedMu  sync.Mutex
}

// NewUploader returns an uploader continuing from the writer's manifest.
func NewUploader(o UploaderOptions) *Uploader {
	if o.Interval <= 0 {
		o.Interval = 10 * time.Second
	}
	if o.PackBytes <= 0 {
		o.PackBytes = 128 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.GCInterval == 0 {
		o.GCInterval = 10 * time.Minute
	}
	if o.GC.Logger == nil {
		o.GC.Logger = o.Logger
	}
	u := &Uploader{o: o, kick: make(chan struct{}, 1), changed: make(chan struct{})}
	m := o.Writer.Manifest()
	u.durable.Store(uint64(m.Durable))
	u.settled.Store(uint64(m.Settled))
	if n := len(m.Segments); n > 0 {
		u.since, u.sinceStore = m.Segments[n-1].Until, m.Segments[n-1].Store
	}
	return u
}

// Kick asks for an upload (after a group flush); it never blocks.
func (u *Uploader) Kick() {
	u.pending.Add(1)
	select {
	case u.kick <- struct{}{}:
	default:
	}
}

// Durable returns the remote-durable LSN.
func (u *Uploader) Durable() wal.LSN { return wal.LSN(u.durable.Load()) }

// Settled returns the settled LSN the manifest records.
func (u *Uploader) Settled() wal.LSN { return wal.LSN(u.settled.Load()) }

// errNotSettled: the settled LSN is not in the manifest yet.
var errNotSettled = errors.New("settled LSN not yet in the remote manifest")

// Settle implements wal.Settler for remote.sync_ack: an idle
// acknowledgement to lsn is allowed once the manifest records it (the
// next upload, asked for now), so a restore recognises the slot.
func (u *Uploader) Settle(lsn wal.LSN) error {
	if lsn <= u.Settled() {
		return nil
	}
	for {
		cur := u.wantSettle.Load()
		if uint64(lsn) <= cur || u.wantSettle.CompareAndSwap(cur, uint64(lsn)) {
			break
		}
	}
	select {
	case u.kick <- struct{}{}:
	default:
	}
	return errNotSettled
}

// Changed returns a channel closed when the remote-durable LSN next advances.
func (u *Uploader) Changed() <-chan struct{} {
	u.changedMu.Lock()
	defer u.changedMu.Unlock()
	return u.changed
}

// Status is what `sidecar status` and /metrics show of the remote.
type Status struct {
	URL              string  `json:"url"`
	Epoch            uint64  `json:"epoch"`
	RemoteDurableLSN string  `json:"remote_durable_lsn"`
	BacklogBytes     int64   `json:"backlog_bytes"`  // local durable LSN − remote-durable LSN
	BacklogGroups    int64   `json:"backlog_groups"` // group flushes not yet uploaded
	Uploads          int64   `json:"uploads"`
	Failures         int64   `json:"failures"`
	LastError        string  `json:"last_error,omitempty"`
	LastUploadSecs   float64 `json:"last_upload_seconds"`
	LastUploadPuts   int64   `json:"last_upload_puts"`
	Packs            int     `json:"packs"`
}

// Status returns the uploader's state.
func (u *Uploader) Status() Status {
	st := Status{URL: u.o.Writer.c.loc.String(), Epoch: u.o.Writer.Epoch(), RemoteDurableLSN: u.Durable().String(),
		BacklogGroups: u.pending.Load(), Uploads: u.uploads.Load(), Failures: u.failures.Load(),
		LastUploadSecs: time.Duration(u.lastTook.Load()).Seconds(), LastUploadPuts: u.lastPuts.Load(), Packs: u.o.Store.Stats().Packs}
	if d, r := u.o.Mirror.Durable(), u.Durable(); d > r {
		st.BacklogBytes = int64(d - r)
	}
	if p := u.lastErr.Load(); p != nil {
		st.LastError = *p
	}
	return st
}

// Run uploads after every Kick and every Interval until ctx ends, renewing
// the lease every TTL/3. A fenced writer or a lost lease stops it with
// that error (the daemon stops: another sidecar writes the prefix now);
// other failures are logged, counted and retried at the next tick.
func (u *Uploader) Run(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	// Renewals run on their own goroutine: a long upload (a big pack on a
	// slow link) must not let the lease run out.
	g.Go(func() error { return u.renewLoop(gctx) })
	g.Go(func() error { return u.uploadLoop(gctx) })
	return g.Wait()
}

func (u *Uploader) renewLoop(ctx context.Context) error {
	renew := time.NewTicker(max(u.o.Writer.opts.TTL/3, 10*time.Millisecond))
	defer renew.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-renew.C:
		}
		if err := u.o.Writer.Renew(ctx); err != nil {
			if errors.Is(err, ErrLeaseLost) {
				return err
			}
			if ctx.Err() != nil {
				return nil
			}
			u.o.Logger.Warn("remote lease renewal failed; retrying", "err", err)
		}
	}
}

func (u *Uploader) uploadLoop(ctx context.Context) error {
	tick := time.NewTicker(u.o.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-u.kick:
		case <-tick.C:
			// A tick only covers what no group flush did: one that
			// uploaded within the interval already carried the log.
			if last := u.lastAt.Load(); last != 0 && time.Since(time.Unix(0, last)) < u.o.Interval {
				continue
			}
		}
		err := u.Upload(ctx)
		what := "remote upload failed; retrying"
		if err == nil {
			err, what = u.maybeGC(ctx), "remote gc failed; retrying later"
		}
		if err != nil {
			if errors.Is(err, ErrFenced) || errors.Is(err, ErrLeaseLost) {
				return err
			}
			if ctx.Err() != nil {
				return nil
			}
			u.o.Logger.Warn(what, "err", err)
		}
	}
}

// maybeGC runs a remote GC pass when GCInterval passed since the last
// one. It runs between uploads and only when no uploaded pack awaits its
// manifest commit (GC would take that pack for an orphan's kin).
func (u *Uploader) maybeGC(ctx context.Context) error {
	if u.o.GCInterval < 0 || len(u.uncommitted) > 0 || time.Since(u.lastGC) < u.o.GCInterval {
		return nil
	}
	u.lastGC = time.Now()
	o := u.o.GC
	if o.Local == nil {
		o.Local = u.o.Mirror.Engine().Store()
	}
	_, err := GC(ctx, u.o.Writer, u.o.Store, o)
	return err
}

// Upload uploads what is new since the last upload and commits it in the
// manifest. It is also the final upload at shutdown.
func (u *Uploader) Upload(ctx context.Context) (err error) {
	start := time.Now()
	c := u.o.Writer.c
	puts0 := c.puts.Load()
	pending := u.pending.Load()
	defer func() {
		if err != nil {
			u.failures.Add(1)
			s := err.Error()
			u.lastErr.Store(&s)
		}
	}()
	durable := u.o.Mirror.Durable()
	roots, err := u.roots(ctx)
	if err != nil {
		return err
	}
	if u.storeID == "" {
		id, err := StoreIdentity(u.o.DB)
		if err != nil {
			return fmt.Errorf("remote upload: %w", err)
		}
		if u.sinceStore != id && u.since != 0 {
			// The last segment counted another store's versions (this
			// data directory was restored, or took over from another
			// machine): from here, versions below it may be new. One
			// segment of every record, then incremental again.
			u.o.Logger.Info("remote upload: the last segment is of another store; the next holds every record", "since", u.since)
			u.since = 0
		}
		u.storeID = id
	}
	seg, until, nrec, err := readSegment(u.o.DB.Badger(), u.since)
	if err != nil {
		return fmt.Errorf("remote upload: %w", err)
	}
	// Roots again after the snapshot: a group flushed meanwhile is in the
	// segment, and its nodes must be in a pack.
	more, err := u.roots(ctx)
	if err != nil {
		return err
	}
	roots = append(roots, more...)
	packs := u.uncommitted
	defer func() { u.uncommitted = packs }()
	nodes, err := u.queueNew(ctx, roots, func() error {
		ref, err := u.o.Store.FlushPack(ctx)
		if err == nil && ref.Nodes > 0 {
			packs = append(packs, ref)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("remote upload: %w", err)
	}
	ref, err := u.o.Store.FlushPack(ctx)
	if err != nil {
		return fmt.Errorf("remote upload: %w", err)
	}
	if ref.Nodes > 0 {
		packs = append(packs, ref)
	}
	var segRef *SegmentRef
	if seg != nil {
		r := SegmentRef{Name: fmt.Sprintf("log/%016x-%016x.seg", u.o.Writer.Epoch(), until), Since: u.since, Until: until, Durable: durable, Bytes: int64(len(seg)), Store: u.storeID}
		if _, err := c.Put(ctx, r.Name, seg, Cond{}); err != nil {
			return fmt.Errorf("remote upload: segment: %w", err)
		}
		segRef = &r
	}
	tags, branches, err := u.refs()
	if err != nil {
		return err
	}
	horizon, _ := u.o.Mirror.Horizon()
	settle := wal.LSN(u.wantSettle.Load())
	if segRef == nil && len(packs) == 0 && durable <= u.Durable() && settle <= u.Settled() {
		u.pending.Add(-pending)
		return nil
	}
	if err := u.o.Writer.Commit(ctx, func(m *Manifest) {
		// A commit whose answer was lost may have landed (the writer
		// then adopted it): what it carried is not listed twice.
		m.Packs = appendNewPacks(m.Packs, packs)
		if segRef != nil && (len(m.Segments) == 0 || m.Segments[len(m.Segments)-1].Name != segRef.Name) {
			m.Segments = append(m.Segments, *segRef)
		}
		m.Durable = max(m.Durable, durable)
		m.Settled = max(m.Settled, settle)
		m.Tags, m.Branches, m.Horizon = tags, branches, horizon
		m.Roots = rootNames(roots)
	}); err != nil {
		return fmt.Errorf("remote upload: %w", err)
	}
	u.since = until
	packs = nil
	u.pending.Add(-pending)
	u.uploads.Add(1)
	u.lastTook.Store(int64(time.Since(start)))
	u.lastAt.Store(time.Now().UnixNano())
	u.lastPuts.Store(c.puts.Load() - puts0)
	if settle > u.Settled() {
		u.settled.Store(uint64(settle))
	}
	if durable > u.Durable() {
		u.durable.Store(uint64(durable))
		u.changedMu.Lock()
		close(u.changed)
		u.changed = make(chan struct{})
		u.changedMu.Unlock()
	}
	u.o.Logger.Debug("remote upload", "durable_lsn", durable, "packs", len(packs), "nodes", nodes, "records", nrec, "took", time.Since(start))
	return nil
}

// rootNames returns the distinct hashes of roots, sorted.
func rootNames(roots []prolly.Root) []string {
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		out = append(out, r.Hash.String())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// roots lists every root the data directory retains: the group records'
// and the branches'.
func (u *Uploader) roots(ctx context.Context) ([]prolly.Root, error) {
	out, err := u.o.Mirror.GroupRoots(ctx)
	if err != nil {
		return nil, fmt.Errorf("remote upload: %w", err)
	}
	bs, err := refs.NewCatalog(u.o.DB).Branches()
	if err != nil {
		return nil, fmt.Errorf("remote upload: branches: %w", err)
	}
	for _, b := range bs {
		for _, r := range b.Roots {
			out = append(out, r.Root)
		}
	}
	return out, nil
}

func (u *Uploader) refs() (map[string]wal.LSN, []string, error) {
	cat := refs.NewCatalog(u.o.DB)
	ts, err := cat.Tags()
	if err != nil {
		return nil, nil, fmt.Errorf("remote upload: tags: %w", err)
	}
	bs, err := cat.Branches()
	if err != nil {
		return nil, nil, fmt.Errorf("remote upload: branches: %w", err)
	}
	tags := map[string]wal.LSN{}
	for _, t := range ts {
		tags[t.Name] = t.LSN
	}
	var names []string
	for _, b := range bs {
		names = append(names, b.Name)
	}
	return tags, names, nil
}

// queueNew walks roots, queueing every node not yet remote; a subtree
// whose root is remote is skipped (its nodes went up with it). cut is
// called whenever the queue passes PackBytes.
func (u *Uploader) queueNew(ctx context.Context, roots []prolly.Root, cut func() error) (int, error) {
	eng := u.o.Mirror.Engine()
	ns := eng.Store()
	seen := map[addr.Hash]bool{}
	var batch []addr.Hash
	queued := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		got, err := ns.GetMany(ctx, batch)
		if err != nil {
			return fmt.Errorf("read nodes to upload: %w", err)
		}
		for i, n := range got {
			u.o.Store.Queue(batch[i], n.Bytes())
		}
		queued += len(batch)
		batch = batch[:0]
		if u.o.Store.Stats().QueuedBytes >= u.o.PackBytes {
			return cut()
		}
		return nil
	}
	for _, r := range roots {
		if seen[r.Hash] || u.o.Store.Contains(r.Hash) {
			continue
		}
		err := eng.Walk(ctx, r, func(h addr.Hash, level int) (bool, error) {
			if seen[h] || u.o.Store.Contains(h) {
				return false, nil
			}
			seen[h] = true
			batch = append(batch, h)
			if len(batch) >= 4096 {
				return true, flush()
			}
			return true, nil
		})
		if err != nil {
			// A root expired and swept between listing and walking fails
			// this upload; the next one lists without it.
			return queued, fmt.Errorf("walk %s: %w", r.Hash.Short(), err)
		}
	}
	return queued, flush()
}

// appendNewPacks appends to have the packs of add it does not list yet.
func appendNewPacks(have, add []PackRef) []PackRef {
	seen := make(map[PackRef]bool, len(have))
	for _, p := range have {
		seen[p] = true
	}
	for _, p := range add {
		if !seen[p] {
			seen[p] = true
			have = append(have, p)
		}
	}
	return have
}
