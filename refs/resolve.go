package refs

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/internal/editdist"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// ErrBadRef is wrapped by errors about a ref that does not parse (an API
// answers 400).
var ErrBadRef = errors.New("bad ref")

// ErrUnknownRef is wrapped by errors about a well-formed ref that names no
// version the mirror holds (an API answers 404).
var ErrUnknownRef = errors.New("unknown ref")

// Point is what a ref resolves to: a commit of the mirror's history, or a
// branch (then Version is the commit the branch was made from).
type Point struct {
	Ref     Ref
	Version mirror.Version
	Branch  *Branch
}

// LSN is the end LSN of the point's commit (for a branch: the commit it was
// made from).
func (p Point) LSN() wal.LSN { return p.Version.EndLSN }

// String names the point for messages: the ref and what it resolved to.
func (p Point) String() string {
	if p.Branch != nil {
		return fmt.Sprintf("branch %s (from %s)", p.Branch.Name, p.Branch.From)
	}
	if p.Ref.Text == p.Version.EndLSN.String() {
		return p.Ref.Text
	}
	return fmt.Sprintf("%s (%s)", p.Ref.Text, p.Version.EndLSN)
}

// Resolver resolves refs against a mirror and a ref catalog.
type Resolver struct {
	Mirror  *mirror.Mirror
	Catalog *Catalog
	bdb     *badger.DB
}

// NewResolver returns a resolver over the mirror m stored in db.
func NewResolver(db *store.DB, m *mirror.Mirror) *Resolver {
	return &Resolver{Mirror: m, Catalog: NewCatalog(db), bdb: db.Badger()}
}

// Resolve parses text and finds the version it names:
//
//	HEAD~N   the Nth commit before the latest written one (the initial
//	         copy, at its copy LSN, is the version before the first
//	         commit, and HEAD before any commit)
//	LSN      the latest commit with end LSN at or before it
//	@time    the latest commit with commit time at or before it
//	NAME     a tag (its commit) or a branch
//
// Errors wrap ErrBadRef (syntax) or ErrUnknownRef (nothing there) and say
// what exists: the oldest retained version and the head, or the nearest
// tag and branch names.
func (r *Resolver) Resolve(ctx context.Context, text string) (Point, error) {
	ref, err := ParseRef(text)
	if err != nil {
		return Point{}, fmt.Errorf("%w: %w", ErrBadRef, err)
	}
	if err := ctx.Err(); err != nil {
		return Point{}, err
	}
	p := Point{Ref: ref}
	head := r.Mirror.Head()
	if head.EndLSN == 0 && ref.Kind != RefName {
		// No commit yet: the initial copy, once done, is HEAD (and every
		// LSN from it on).
		c := r.InitialCopy(0)
		switch {
		case c == 0 && len(r.Mirror.Tables()) > 0:
			return p, fmt.Errorf("ref %q: %w: the mirror holds no commit yet, and its tables were copied under different snapshots (a resumed initial copy), so no single copied state is a version: HEAD is the first commit", text, ErrUnknownRef)
		case c == 0:
			return p, fmt.Errorf("ref %q: %w: the mirror holds no commit yet and its initial copy is not done (see `sidecar status`)", text, ErrUnknownRef)
		case ref.Kind == RefHead && ref.N == 0, ref.Kind == RefLSN && ref.LSN >= c:
			p.Version = mirror.Version{EndLSN: c}
			return p, nil
		}
		return p, fmt.Errorf("ref %q: %w: the mirror holds no commit yet; HEAD is its initial copy at %s, with no version before it", text, ErrUnknownRef, c)
	}
	switch ref.Kind {
	case RefHead:
		lsn, back, err := r.nthBefore(head.EndLSN, ref.N)
		if err != nil {
			return p, fmt.Errorf("ref %q: %w", text, err)
		}
		if c := r.InitialCopy(lsn); back == ref.N-1 && c != 0 {
			// One before the oldest commit: the initial copy.
			p.Version = mirror.Version{EndLSN: c}
			return p, nil
		}
		if back < ref.N {
			oldest := lsn.String()
			if c := r.InitialCopy(lsn); c != 0 {
				back++
				oldest = "the initial copy at " + c.String()
			}
			return p, fmt.Errorf("ref %q: %w: only %d versions are retained before HEAD (%s); the oldest is %s",
				text, ErrUnknownRef, back, head.EndLSN, oldest)
		}
		p.Version, err = r.Mirror.VersionAt(lsn)
		if err != nil {
			return p, fmt.Errorf("ref %q: %w", text, err)
		}
	case RefLSN:
		v, err := r.Mirror.VersionAt(ref.LSN)
		if errors.Is(err, mirror.ErrNoVersion) {
			if c := r.copiedAt(ref.LSN); c != 0 {
				// Before the first commit, but after an initial copy: the
				// copied state is the version (a group record at the copy
				// LSN holds it).
				p.Version = mirror.Version{EndLSN: c}
				return p, nil
			}
			return p, fmt.Errorf("ref %q: %w: before the oldest retained version %s (head %s)",
				text, ErrUnknownRef, r.oldest(head), head.EndLSN)
		}
		if errors.Is(err, mirror.ErrExpired) {
			return p, fmt.Errorf("ref %q: %w: before the oldest retained version %s (head %s; history.retain expired it)",
				text, ErrUnknownRef, r.oldest(head), head.EndLSN)
		}
		if err != nil {
			return p, fmt.Errorf("ref %q: %w", text, err)
		}
		p.Version = v
	case RefTime:
		v, ok, err := r.atTime(ref, head)
		if err != nil {
			return p, fmt.Errorf("ref %q: %w", text, err)
		}
		if !ok {
			old, _ := r.Mirror.VersionAt(r.oldest(head))
			return p, fmt.Errorf("ref %q: %w: before the oldest retained version %s, committed %s",
				text, ErrUnknownRef, old.EndLSN, old.CommitTime.UTC().Format("2006-01-02T15:04:05.999999Z07:00"))
		}
		p.Version = v
	case RefName:
		return r.resolveName(p)
	}
	return p, nil
}

func (r *Resolver) resolveName(p Point) (Point, error) {
	name := p.Ref.Name
	t, ok, err := r.Catalog.Tag(name)
	if err != nil {
		return p, err
	}
	if ok {
		v, err := r.Mirror.VersionAt(t.LSN)
		if errors.Is(err, mirror.ErrNoVersion) && r.copiedAt(t.LSN) == t.LSN {
			v, err = mirror.Version{EndLSN: t.LSN}, nil // a tagged initial copy
		}
		if err != nil {
			return p, fmt.Errorf("tag %q at %s: %w", name, t.LSN, err)
		}
		if v.EndLSN != t.LSN {
			return p, fmt.Errorf("tag %q: %w: its commit %s is no longer stored", name, ErrUnknownRef, t.LSN)
		}
		p.Version = v
		return p, nil
	}
	b, ok, err := r.Catalog.Branch(name)
	if err != nil {
		return p, err
	}
	if ok {
		p.Branch = &b
		// The version a branch came from may have expired: the branch's
		// own trees are kept, so it stays readable.
		if b.From != 0 {
			if p.Version, err = r.Mirror.VersionAt(b.From); err != nil && !errors.Is(err, mirror.ErrNoVersion) && !errors.Is(err, mirror.ErrExpired) {
				return p, fmt.Errorf("branch %q: %w", name, err)
			}
		}
		p.Version.EndLSN = b.From
		return p, nil
	}
	return p, fmt.Errorf("ref %q: %w: no tag or branch has this name%s", name, ErrUnknownRef, r.nearest(name))
}

// nearest lists up to three existing names closest to name, for errors.
func (r *Resolver) nearest(name string) string {
	var names []string
	tags, _ := r.Catalog.Tags()
	for _, t := range tags {
		names = append(names, t.Name)
	}
	branches, _ := r.Catalog.Branches()
	for _, b := range branches {
		names = append(names, b.Name)
	}
	if len(names) == 0 {
		return " (there are no tags or branches; refs are HEAD, HEAD~N, an LSN, @<time>)"
	}
	sort.SliceStable(names, func(i, j int) bool { return editdist.Distance(name, names[i]) < editdist.Distance(name, names[j]) })
	if len(names) > 3 {
		names = names[:3]
	}
	return "; nearest: " + strings.Join(names, ", ")
}

// copiedAt returns the latest initial-copy LSN of a table at or before
// lsn, or 0.
func (r *Resolver) copiedAt(lsn wal.LSN) wal.LSN {
	var best wal.LSN
	for _, t := range r.Mirror.Tables() {
		if t.CopiedAt != 0 && t.CopiedAt <= lsn && t.CopiedAt > best {
			best = t.CopiedAt
		}
	}
	return best
}

// InitialCopy returns the LSN of the initial copy when it is the version
// just before the commit at first (first 0: before any commit), or 0. It
// is one only when every table copied before first was copied at the same
// LSN, under one snapshot, so that reading each table there is one
// consistent state (its group record holds it), and nothing at or below
// it expired. A resumed initial copy (tables copied under different
// snapshots) is no version: HEAD starts at the first commit.
func (r *Resolver) InitialCopy(first wal.LSN) wal.LSN {
	var c wal.LSN
	for _, t := range r.Mirror.Tables() {
		switch {
		case t.CopiedAt == 0 || (first != 0 && t.CopiedAt >= first):
		case c == 0:
			c = t.CopiedAt
		case t.CopiedAt != c:
			return 0
		}
	}
	if horizon, _ := r.Mirror.Horizon(); c == 0 || horizon > c {
		return 0
	}
	return c
}

// oldest returns the end LSN of the oldest retained commit.
func (r *Resolver) oldest(head mirror.Version) wal.LSN {
	horizon, _ := r.Mirror.Horizon()
	vs, err := r.Mirror.Versions(horizon, head.EndLSN, 1)
	if err != nil || len(vs) == 0 {
		return head.EndLSN
	}
	return vs[0].EndLSN
}

// commitLogPrefix is the mirror's per-commit log ('s' 'l' endLSN, see
// mirror/doc.go): one key per version, so walking keys backwards counts
// commits without decoding them.
var commitLogPrefix = []byte{store.PrefixSpool, 'l'}

// nthBefore returns the end LSN of the commit n commits before the one at
// from, or the oldest one and how many steps back it is when there are
// fewer.
func (r *Resolver) nthBefore(from wal.LSN, n int) (wal.LSN, int, error) {
	if lsn, back, err := r.Mirror.NthBefore(from, n); !errors.Is(err, mirror.ErrNoIndex) {
		return lsn, back, err
	}
	// A data directory from before the commit index: walk the log keys.
	lsn, back := from, -1
	horizon, _ := r.Mirror.Horizon()
	err := r.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: commitLogPrefix, Reverse: true})
		defer it.Close()
		seek := binary.BigEndian.AppendUint64(append([]byte(nil), commitLogPrefix...), uint64(from))
		for it.Seek(seek); it.Valid() && back < n; it.Next() {
			k := it.Item().Key()
			if len(k) != len(commitLogPrefix)+8 {
				return fmt.Errorf("commit log key %x: want %d bytes", k, len(commitLogPrefix)+8)
			}
			at := wal.LSN(binary.BigEndian.Uint64(k[len(commitLogPrefix):]))
			if at < horizon {
				break // older commits expired: HEAD~N never skips them
			}
			lsn = at
			back++
		}
		return nil
	})
	return lsn, back, err
}

// LatestFirst returns the end LSNs of up to n commits at or before from,
// newest first (n <= 0: all), walking the commit log keys backwards.
func (r *Resolver) LatestFirst(from wal.LSN, n int) ([]wal.LSN, error) {
	var out []wal.LSN
	err := r.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: commitLogPrefix, Reverse: true})
		defer it.Close()
		seek := binary.BigEndian.AppendUint64(append([]byte(nil), commitLogPrefix...), uint64(from))
		for it.Seek(seek); it.Valid() && (n <= 0 || len(out) < n); it.Next() {
			k := it.Item().Key()
			if len(k) != len(commitLogPrefix)+8 {
				return fmt.Errorf("commit log key %x: want %d bytes", k, len(commitLogPrefix)+8)
			}
			if at := wal.LSN(binary.BigEndian.Uint64(k[len(commitLogPrefix):])); r.Mirror.Retained(at) {
				out = append(out, at)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list commits before %s: %w", from, err)
	}
	return out, nil
}

// atTime finds the latest commit with commit time at or before ref.Time
// by binary search over LSNs (commit times grow with commit LSNs), so it
// costs O(log(LSN span)) seeks, not a walk of the history.
func (r *Resolver) atTime(ref Ref, head mirror.Version) (mirror.Version, bool, error) {
	if !head.CommitTime.After(ref.Time) {
		return head, true, nil
	}
	lo := r.oldest(head)
	first, err := r.Mirror.VersionAt(lo)
	if err != nil {
		return mirror.Version{}, false, err
	}
	if first.CommitTime.After(ref.Time) {
		return mirror.Version{}, false, nil
	}
	// Invariant: the version at lo is at or before the time; at hi it is after.
	best, hi := first, head.EndLSN
	for lo < hi-1 {
		mid := lo + (hi-lo)/2
		v, err := r.Mirror.VersionAt(mid)
		if err != nil {
			return mirror.Version{}, false, err
		}
		if v.CommitTime.After(ref.Time) {
			hi = mid
		} else {
			lo, best = mid, v
		}
	}
	return best, true, nil
}
