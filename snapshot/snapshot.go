// Package snapshot is the pinned read view of the whole mirror at one
// version: every reader of rows (SQL, `sidecar agg/get/scan`, the HTTP
// API, history) opens one, reads any number of tables from it, and
// releases it.
//
// Open resolves the ref once. Each table is then read from the in-memory
// HEAD (package head: heap pages and a radix index) when the model holds
// exactly that version, and from the Prolly tree at that version
// otherwise; the choice is made per table when it is first used, and the
// answer is the same either way (the model is derived from the trees).
// The table's relation (its columns) is the one of the rows read: the
// model's relation when the model serves it, the tree's relation at the
// version otherwise, so a schema change between versions never pairs one
// version's columns with another's rows.
//
// A Snapshot registers as a reader of the mirror (mirror.Reading) until
// Release, so a GC that starts meanwhile waits before it sweeps nodes the
// snapshot may read, and it pins the heap snapshots it hands out
// (copy-on-write: applying later batches does not change them).
//
// Layering: snapshot sits below history, query and the SQL layer and
// above mirror, refs, heap and rowenc. It does not import head (head
// imports history); the model is reached through the Head interface,
// which head.Model implements.
package snapshot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/internal/pgident"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// Head is the in-memory HEAD as a snapshot reads it (head.Model).
type Head interface {
	// LSN is the position of the last batch the model applied whole.
	LSN() wal.LSN
	// HeadTable returns the model's state of table (canonical name), or
	// ok=false when it holds none.
	HeadTable(table string) (t HeadTable, ok bool)
	// SnapshotAt returns a heap snapshot of table exactly as it is at
	// version at, with the relation its rows are encoded in, or an error
	// when the model does not hold the table at that version.
	SnapshotAt(table string, at wal.LSN) (*heap.Snapshot, *wal.Relation, error)
	// SnapshotRange is SnapshotAt plus the row ids of the keys in
	// [from, to) read under the same lock; complete=false (ids nil) when
	// the range holds more than max keys.
	SnapshotRange(table string, at wal.LSN, from, to []byte, max int) (snap *heap.Snapshot, rel *wal.Relation, ids []heap.RowID, complete bool, err error)
}

// Following is implemented by a Head that says whether it follows the
// mirror's commits (it caught up once since the start): only then does
// opening a table wait for it (Store.Wait); one still restoring or
// catching up may be far behind, and its tables are read from the trees
// at once.
type Following interface {
	Following() bool
}

// HeadTable is one table of a Head. Its relation is that of the rows it
// serves; once the model replaces the table (a reset, a schema change) it
// serves nothing more (served=false).
type HeadTable interface {
	Relation() *wal.Relation
	// HeadGet appends the row under key at version at to dst.
	HeadGet(key []byte, at wal.LSN, dst []byte) (row []byte, found, served bool)
	// HeadRange calls fn for each key in [from, to) (nil: unbounded), in
	// key order, at most limit rows, within one committed state, each row
	// holding the values of columns cols in that order (nil: every
	// column). fn runs under the model's lock: it must copy and return
	// quickly.
	HeadRange(from, to []byte, limit int, at wal.LSN, cols []int, fn func(key, row []byte) bool) (served bool, err error)
}

// Store opens snapshots of one mirror. Its fields are configuration: a
// copy with other values (another Head, another Wait) is another Store
// over the same mirror.
type Store struct {
	Mirror *mirror.Mirror
	Refs   *refs.Resolver
	// Head, when set, is the in-memory HEAD; nil reads every table from
	// the trees.
	Head Head
	// Wait bounds how long opening a table waits for the model to catch
	// up with the snapshot's version (it trails the trees by at most one
	// commit group) before the table is read from the tree; 0: no wait.
	Wait time.Duration

	// codecs caches KeyCodec by relation (relations are immutable: a
	// schema change makes a new one); shared by copies of the Store. nil
	// (a Store literal): computed per table.
	codecs *sync.Map
	// reads counts the tables opened, shared by copies (nil: not counted).
	reads *ReadCounts
}

// ReadCounts counts the tables snapshots opened from the in-memory HEAD
// and from the trees (status reports them: a read that should have been
// the HEAD's and went to a tree is visible).
type ReadCounts struct {
	Head, Tree atomic.Int64
}

// Reads is the Store's counts (nil for a Store literal).
func (st *Store) Reads() *ReadCounts { return st.reads }

// NewStore is a Store over m with its caches; h may be nil.
func NewStore(m *mirror.Mirror, r *refs.Resolver, h Head) *Store {
	return &Store{Mirror: m, Refs: r, Head: h, codecs: &sync.Map{}, reads: &ReadCounts{}}
}

// codec is KeyCodec(rel), cached.
func (st *Store) codec(rel *wal.Relation) (*rowenc.KeyCodec, error) {
	if st.codecs == nil {
		return KeyCodec(rel)
	}
	if c, ok := st.codecs.Load(rel); ok {
		return c.(*rowenc.KeyCodec), nil
	}
	c, err := KeyCodec(rel)
	if err == nil {
		st.codecs.Store(rel, c)
	}
	return c, err
}

// Snapshot is the mirror at one version. It is safe for concurrent use;
// Release it when done.
type Snapshot struct {
	st   *Store
	ref  string // as the caller wrote it ("" is HEAD)
	done func() // ends the reader registration

	mu sync.Mutex
	// p is the resolved version. At HEAD it may still move forward while
	// no table has been opened (see Table): nothing was read yet, so the
	// newer version is as much "HEAD" as the first.
	p        refs.Point
	pinned   bool
	tables   map[string]*Table
	released bool
}

// isHead says whether ref names the mirror's head.
func isHead(ref string) bool { return ref == "" || strings.EqualFold(ref, "HEAD") }

// Open resolves ref (HEAD, HEAD~N, an LSN, @time, a tag or a branch; ""
// is HEAD) and returns the snapshot at that version. The error carries
// the resolver's message (refs.ErrBadRef and friends).
func (st *Store) Open(ctx context.Context, ref string) (*Snapshot, error) {
	done := st.Mirror.Reading()
	p, err := st.resolve(ctx, ref)
	if err != nil {
		done()
		return nil, err
	}
	return &Snapshot{st: st, ref: ref, done: done, p: p, tables: map[string]*Table{}}, nil
}

// resolve resolves ref. HEAD is the mirror's head commit without a
// look-up in the commit log (once there is one).
func (st *Store) resolve(ctx context.Context, ref string) (refs.Point, error) {
	if isHead(ref) {
		if h := st.Mirror.Head(); h.EndLSN != 0 {
			return refs.Point{Ref: refs.Ref{Kind: refs.RefHead, Text: "HEAD"}, Version: h}, nil
		}
		ref = "HEAD"
	}
	return st.Refs.Resolve(ctx, ref)
}

// Ref is the ref the snapshot was opened with ("HEAD" for "").
func (s *Snapshot) Ref() string {
	if s.ref == "" {
		return "HEAD"
	}
	return s.ref
}

// Point is the resolved version (once a table is opened, fixed).
func (s *Snapshot) Point() refs.Point {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.p
}

// LSN is the end LSN of the commit read (for a branch: the commit it came
// from).
func (s *Snapshot) LSN() wal.LSN { return s.Point().LSN() }

// Release ends the snapshot: the heap snapshots it pinned are released
// and the mirror no longer waits for it. Tables must not be used after.
// Releasing twice is harmless.
func (s *Snapshot) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.released {
		return
	}
	s.released = true
	for _, t := range s.tables {
		t.release()
	}
	s.tables = nil
	s.done()
}

// ErrReleased is returned by reads of a released snapshot.
var ErrReleased = errors.New("snapshot: read after Release")

// LookupTable finds table in the mirror by its canonical name
// (public.accounts, public."Accounts") or any name form config accepts
// (a bare name is in public; unquoted parts fold to lower case). The
// error wraps mirror.ErrUnknownTable and lists the followed tables.
func LookupTable(m *mirror.Mirror, table string) (mirror.TableInfo, error) {
	tables := m.Tables()
	for _, t := range tables {
		if t.Name == table {
			return t, nil
		}
	}
	if tn, err := pgident.ParseTable(table); err == nil {
		for _, t := range tables {
			if t.Name == tn.String() {
				return t, nil
			}
		}
	}
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.Name
	}
	list := strings.Join(names, ", ")
	if list == "" {
		list = "none yet"
	}
	return mirror.TableInfo{}, fmt.Errorf("table %q: %w (tables: %s)", table, mirror.ErrUnknownTable, list)
}

// KeyCodec is the primary-key codec of rel's trees (nil for a REPLICA
// IDENTITY FULL table, whose key is the whole row).
func KeyCodec(rel *wal.Relation) (*rowenc.KeyCodec, error) {
	if rel.Identity == wal.IdentityFull {
		return nil, nil
	}
	keys := rel.KeyColumns()
	kinds := make([]rowenc.KeyKind, len(keys))
	for i, k := range keys {
		kinds[i] = rowenc.KindForOID(rel.Columns[k].TypeOID)
	}
	return rowenc.NewKeyCodec(kinds...)
}

// Table opens table (any name LookupTable accepts) in the snapshot: from
// the in-memory HEAD when it holds the snapshot's version of it, from the
// tree otherwise. Opening the same table twice returns the same Table.
func (s *Snapshot) Table(ctx context.Context, name string) (*Table, error) {
	info, err := LookupTable(s.st.Mirror, name)
	if err != nil {
		return nil, err
	}
	return s.TableOf(ctx, info)
}

// TableOf is Table for a table already looked up (LookupTable).
func (s *Snapshot) TableOf(ctx context.Context, info mirror.TableInfo) (*Table, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.released {
		return nil, ErrReleased
	}
	if t := s.tables[info.Name]; t != nil {
		return t, nil
	}
	t, err := s.open(ctx, info)
	if err != nil {
		return nil, err
	}
	s.tables[info.Name] = t
	s.pinned = true
	return t, nil
}

// open opens one table (under s.mu).
func (s *Snapshot) open(ctx context.Context, info mirror.TableInfo) (*Table, error) {
	t := &Table{Name: info.Name, snap: s}
	if s.p.Branch == nil {
		// A version inside the table's resync window is refused on every
		// path, the in-memory HEAD's included (mirror.ResyncWindowError).
		if err := s.st.Mirror.Readable(info.Name, s.p.LSN()); err != nil {
			return nil, err
		}
	}
	if s.p.Branch == nil && s.st.Head != nil {
		if err := s.openHead(ctx, t); err != nil {
			return nil, err
		}
		if t.heap != nil {
			if s.st.reads != nil {
				s.st.reads.Head.Add(1)
			}
			return t, nil
		}
	}
	tr, err := OpenRows(ctx, s.st.Mirror, s.p, info.Name)
	if err != nil {
		return nil, err
	}
	if s.st.reads != nil {
		s.st.reads.Tree.Add(1)
	}
	t.tree, t.Rel, t.Codec = tr, tr.Rel, tr.Codec
	return t, nil
}

// openHead pins the model's heap of t at the snapshot's version when the
// model holds it (waiting up to Store.Wait for the model to catch up);
// t.heap stays nil otherwise. At HEAD, while nothing was read from the
// snapshot, a model that has moved past the version moves the snapshot
// to the mirror's newer head instead.
func (s *Snapshot) openHead(ctx context.Context, t *Table) error {
	h := s.st.Head
	ht, ok := h.HeadTable(t.Name)
	if !ok {
		return nil // not held (not loaded yet): no wait
	}
	deadline := time.Now().Add(s.st.Wait)
	if f, ok := h.(Following); ok && !f.Following() {
		// Still catching up after a start: it may be many commits
		// behind, and every read would wait its Wait for nothing.
		deadline = time.Now()
	}
	for {
		at := s.p.LSN()
		if at != 0 {
			if snap, rel, err := h.SnapshotAt(t.Name, at); err == nil {
				codec, err := s.st.codec(rel)
				if err != nil {
					snap.Release()
					return nil // the tree path reports it
				}
				t.heap, t.head, t.at, t.Rel, t.Codec = snap, ht, at, rel, codec
				return nil
			}
		}
		if !time.Now().Before(deadline) {
			return nil
		}
		if applied := h.LSN(); applied >= at {
			// The model is at or past at and still does not hold the
			// table at at: a later batch touched it (or replaced it).
			// At HEAD, with nothing read yet, the mirror's newer head is
			// as much HEAD; any other version is the tree's.
			hv := s.st.Mirror.Head()
			if !isHead(s.ref) || s.pinned || hv.EndLSN <= at {
				return nil
			}
			s.p.Version = hv
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}
