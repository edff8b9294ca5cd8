package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

const leaseName = "lease.json"

// ErrLeaseHeld is wrapped when another sidecar holds the prefix's lease.
var ErrLeaseHeld = errors.New("remote prefix is held by another sidecar")

// ErrLeaseLost is wrapped when a writer's lease was taken or expired: it
// must stop writing.
var ErrLeaseLost = errors.New("remote lease lost")

// lease is the object that says who writes a prefix. Epoch only grows: a
// release keeps it and zeroes Expires.
type lease struct {
	Holder  string    `json:"holder"`
	Epoch   uint64    `json:"epoch"`
	Expires time.Time `json:"expires"`
}

// WriterOptions configure OpenWriter.
type WriterOptions struct {
	// Holder names this sidecar (host and data directory). The same holder
	// may take its own unexpired lease again: one data directory has one
	// process (sidecar.lock), so that is a restart, not a second writer.
	Holder string
	// TTL is how long a lease lasts unrenewed (default 30 s).
	TTL time.Duration
	// Takeover takes the lease even from a live holder (the operator says
	// it is dead); its writes are then refused by the manifest CAS.
	Takeover bool
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
}

// Writer is the one writer of a prefix: it holds the lease (epoch E) and
// replaces the manifest by CAS, stamping E into it. Safe for concurrent use.
type Writer struct {
	c    *Client
	opts WriterOptions

	mu        sync.Mutex
	lease     lease
	leaseETag string
	man       *Manifest
	manETag   string
	err       error // sticky: fenced or lease lost

	// A write whose answer never came (the context ended or the
	// connection broke after the request left) may have landed: the
	// object's ETag is then no longer the one kept above, and the next
	// CAS would fail as if another writer had taken the prefix over. The
	// write is kept here with its bytes until the next write settles it
	// by reading the object back (settleManifest, settleLease).
	unsureMan        *Manifest
	unsureManBytes   []byte
	unsureLease      *lease
	unsureLeaseBytes []byte
}

// settleManifest decides a manifest write whose answer was lost: when the
// manifest now holds exactly its bytes it landed, and it becomes the
// writer's manifest with the current ETag; otherwise it did not, and the
// ETag kept is still ours (or another writer's CAS will say fenced). A
// failed read leaves it undecided. Called with w.mu held.
func (w *Writer) settleManifest(ctx context.Context) error {
	if w.unsureMan == nil {
		return nil
	}
	tag, landed, err := w.readBack(ctx, manifestName, w.unsureManBytes)
	if err != nil {
		return err
	}
	if landed {
		w.man, w.manETag = w.unsureMan, tag
	}
	w.unsureMan, w.unsureManBytes = nil, nil
	return nil
}

// settleLease is settleManifest for the lease object.
func (w *Writer) settleLease(ctx context.Context) error {
	if w.unsureLease == nil {
		return nil
	}
	tag, landed, err := w.readBack(ctx, leaseName, w.unsureLeaseBytes)
	if err != nil {
		return err
	}
	if landed {
		w.lease, w.leaseETag = *w.unsureLease, tag
	}
	w.unsureLease, w.unsureLeaseBytes = nil, nil
	return nil
}

// readBack reads object name and says whether it holds exactly want (a
// write of ours landed), with its ETag.
func (w *Writer) readBack(ctx context.Context, name string, want []byte) (string, bool, error) {
	cur, tag, err := w.c.Get(ctx, name)
	switch {
	case errors.Is(err, ErrNotExist):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("read back %s after a write whose answer was lost: %w", name, err)
	}
	return tag, bytes.Equal(cur, want), nil
}

// OpenWriter takes the lease of c's prefix (create-if-absent, or CAS over
// an expired one, or over one of the same holder), then stamps its epoch
// into the manifest by CAS, so that a zombie of an earlier epoch can no
// longer replace it. Another live holder: an error wrapping ErrLeaseHeld.
func OpenWriter(ctx context.Context, c *Client, opts WriterOptions) (*Writer, error) {
	if opts.TTL <= 0 {
		opts.TTL = 30 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Holder == "" {
		return nil, errors.New("remote writer: no holder name")
	}
	w := &Writer{c: c, opts: opts}
	if err := w.acquire(ctx); err != nil {
		return nil, err
	}
	m, etag, err := ReadManifest(ctx, c)
	switch {
	case errors.Is(err, ErrNotExist):
		m, etag = &Manifest{}, ""
	case err != nil:
		return nil, err
	}
	if m.Epoch > w.lease.Epoch {
		return nil, fmt.Errorf("remote %s: manifest epoch %d is ahead of the lease's %d: %w", c.loc, m.Epoch, w.lease.Epoch, ErrLeaseHeld)
	}
	next := *m
	next.Epoch, next.Holder, next.Updated = w.lease.Epoch, opts.Holder, opts.Now().UTC()
	tag, err := commitManifest(ctx, c, &next, etag)
	if err != nil {
		return nil, fmt.Errorf("take over manifest: %w", err)
	}
	w.man, w.manETag = &next, tag
	return w, nil
}

func (w *Writer) acquire(ctx context.Context) error {
	now := w.opts.Now()
	data, etag, err := w.c.Get(ctx, leaseName)
	var cur lease
	switch {
	case errors.Is(err, ErrNotExist):
	case err != nil:
		return fmt.Errorf("read lease: %w", err)
	default:
		if err := json.Unmarshal(data, &cur); err != nil {
			return fmt.Errorf("lease of %s: %w", w.c.loc, err)
		}
		if cur.Holder != w.opts.Holder && now.Before(cur.Expires) && !w.opts.Takeover {
			return fmt.Errorf("remote %s: %w: %q (epoch %d) until %s", w.c.loc, ErrLeaseHeld, cur.Holder, cur.Epoch, cur.Expires.UTC().Format(time.RFC3339))
		}
	}
	next := lease{Holder: w.opts.Holder, Epoch: cur.Epoch + 1, Expires: now.Add(w.opts.TTL)}
	b, _ := json.Marshal(next)
	cond := Cond{IfMatch: etag}
	if etag == "" {
		cond = Cond{IfAbsent: true}
	}
	tag, err := w.c.Put(ctx, leaseName, b, cond)
	if errors.Is(err, ErrPrecondition) {
		// Another sidecar took it between our read and write.
		if data, _, rerr := w.c.Get(ctx, leaseName); rerr == nil && json.Unmarshal(data, &cur) == nil {
			return fmt.Errorf("remote %s: %w: %q (epoch %d) won the race for it", w.c.loc, ErrLeaseHeld, cur.Holder, cur.Epoch)
		}
		return fmt.Errorf("remote %s: %w (lost the race for it)", w.c.loc, ErrLeaseHeld)
	}
	if err != nil {
		return fmt.Errorf("take lease: %w", err)
	}
	w.lease, w.leaseETag = next, tag
	return nil
}

// Epoch returns the writer's lease epoch.
func (w *Writer) Epoch() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lease.Epoch
}

// Manifest returns a copy of the last manifest written.
func (w *Writer) Manifest() Manifest {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := *w.man
	return m
}

// Err returns the error that stopped the writer (fenced, lease lost), or nil.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Renew extends the lease by TTL through a CAS on its ETag. A refused CAS
// means another sidecar took the prefix: ErrLeaseLost, sticky.
func (w *Writer) Renew(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if !w.opts.Now().Before(w.lease.Expires) {
		w.err = fmt.Errorf("remote %s: %w: expired at %s before it was renewed", w.c.loc, ErrLeaseLost, w.lease.Expires.UTC().Format(time.RFC3339Nano))
		return w.err
	}
	if err := w.settleLease(ctx); err != nil {
		return fmt.Errorf("renew lease: %w", err)
	}
	next := w.lease
	next.Expires = w.opts.Now().Add(w.opts.TTL)
	b, _ := json.Marshal(next)
	tag, err := w.c.Put(ctx, leaseName, b, Cond{IfMatch: w.leaseETag})
	if errors.Is(err, ErrPrecondition) {
		w.err = fmt.Errorf("remote %s: %w: another sidecar took it over (epoch %d was ours)", w.c.loc, ErrLeaseLost, w.lease.Epoch)
		return w.err
	}
	if err != nil {
		w.unsureLease, w.unsureLeaseBytes = &next, b
		return fmt.Errorf("renew lease: %w", err)
	}
	w.lease, w.leaseETag = next, tag
	return nil
}

// Commit applies update to a copy of the manifest and replaces it by CAS.
// It is refused (sticky) when the lease expired by our clock or another
// writer replaced the manifest (ErrFenced).
func (w *Writer) Commit(ctx context.Context, update func(m *Manifest)) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if !w.opts.Now().Before(w.lease.Expires) {
		w.err = fmt.Errorf("remote %s: %w: expired at %s", w.c.loc, ErrLeaseLost, w.lease.Expires.UTC().Format(time.RFC3339Nano))
		return w.err
	}
	if err := w.settleManifest(ctx); err != nil {
		return err
	}
	next := *w.man
	next.Packs = append([]PackRef(nil), w.man.Packs...)
	next.Segments = append([]SegmentRef(nil), w.man.Segments...)
	next.Roots = append([]string(nil), w.man.Roots...)
	next.Pending = append([]PendingPack(nil), w.man.Pending...)
	update(&next)
	next.Epoch, next.Holder, next.Updated = w.lease.Epoch, w.opts.Holder, w.opts.Now().UTC()
	tag, err := commitManifest(ctx, w.c, &next, w.manETag)
	if errors.Is(err, ErrFenced) {
		w.err = err
		return err
	}
	if err != nil {
		if b, eerr := encodeManifest(&next); eerr == nil {
			w.unsureMan, w.unsureManBytes = &next, b
		}
		return err
	}
	w.man, w.manETag = &next, tag
	return nil
}

// Release gives the lease up (expires now, epoch kept) so a successor
// need not wait for it to run out.
func (w *Writer) Release(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return nil
	}
	// Best effort: an undecided renewal that cannot be read back leaves
	// the old ETag, and the release's CAS then fails harmlessly.
	_ = w.settleLease(ctx)
	next := w.lease
	next.Expires = time.Time{}
	b, _ := json.Marshal(next)
	if _, err := w.c.Put(ctx, leaseName, b, Cond{IfMatch: w.leaseETag}); err != nil && !errors.Is(err, ErrPrecondition) {
		return fmt.Errorf("release lease: %w", err)
	}
	w.err = fmt.Errorf("remote %s: %w: released", w.c.loc, ErrLeaseLost)
	return nil
}
