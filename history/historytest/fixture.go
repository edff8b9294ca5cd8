// Package historytest drives a mirror in-process, without PostgreSQL, for
// the tests of refs/ and history/: tables are created through the
// mirror's copy sink and transactions through its replication sink, with
// made-up LSNs, so random histories run at memory speed.
package historytest

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// Fixture is a mirror on a fresh data directory. Close happens in t.Cleanup.
type Fixture struct {
	T      testing.TB
	Dir    string // the data directory
	DB     *store.DB
	Mirror *mirror.Mirror
	// LSN is the last LSN handed out; Time the last commit time.
	LSN  wal.LSN
	Time time.Time

	cacheBytes int64
	set        func(*mirror.Options)
	setStore   func(*store.Options)
}

// New opens a store and a mirror in t.TempDir(). Small groups make
// versions land both inside groups (log replay) and at group boundaries.
func New(t testing.TB) *Fixture { return NewSized(t, 8<<20) }

// NewSized is New with a node cache of cacheBytes (benchmarks use the
// daemon's default size).
func NewSized(t testing.TB, cacheBytes int64) *Fixture {
	return NewOpts(t, cacheBytes, nil)
}

// NewOpts is NewSized with the mirror's options adjusted by set (nil:
// New's), e.g. a small SpillRows so transactions spill to scratch trees.
func NewOpts(t testing.TB, cacheBytes int64, set func(*mirror.Options)) *Fixture {
	t.Helper()
	f := &Fixture{T: t, Dir: t.TempDir(), LSN: 0x1000000, Time: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
		cacheBytes: cacheBytes, set: set}
	f.open()
	t.Cleanup(f.Close)
	return f
}

// NewStoreOpts is New with the store's options adjusted by set, e.g. small
// value-log files so that value-log GC is seen on a few MiB.
func NewStoreOpts(t testing.TB, set func(*store.Options)) *Fixture {
	t.Helper()
	f := &Fixture{T: t, Dir: t.TempDir(), LSN: 0x1000000, Time: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
		cacheBytes: 8 << 20, setStore: set}
	f.open()
	t.Cleanup(f.Close)
	return f
}

// open opens the store and the mirror on f.Dir.
func (f *Fixture) open() {
	f.T.Helper()
	so := store.Options{Dir: f.Dir, CacheBytes: f.cacheBytes}
	if f.setStore != nil {
		f.setStore(&so)
	}
	db, err := store.Open(so)
	if err != nil {
		f.T.Fatal(err)
	}
	opts := mirror.Options{DB: db, TempDir: f.T.TempDir(), GroupMaxRows: 7, GroupMaxAge: time.Hour}
	if f.set != nil {
		f.set(&opts)
	}
	m, err := mirror.Open(context.Background(), opts)
	if err != nil {
		db.Close()
		f.T.Fatal(err)
	}
	f.DB, f.Mirror = db, m
}

// Reopen closes the mirror and the store and opens them again on the
// same data directory with the same options, as a restart would.
func (f *Fixture) Reopen() {
	f.T.Helper()
	f.Close()
	f.open()
}

// Close closes the mirror and the store (releasing the data directory, so
// a CLI under test can open it); later calls do nothing.
func (f *Fixture) Close() {
	if f.Mirror == nil {
		return
	}
	if err := f.Mirror.Close(context.Background()); err != nil {
		f.T.Error(err)
	}
	if err := f.DB.Close(); err != nil {
		f.T.Error(err)
	}
	f.Mirror, f.DB = nil, nil
}

// Rel returns a relation public.<name> with the given columns
// ("name type" pairs); the first nkeys columns form the primary key.
func Rel(oid uint32, schema, name string, nkeys int, cols ...[2]string) *wal.Relation {
	r := &wal.Relation{OID: oid, Schema: schema, Name: name, Identity: wal.IdentityDefault}
	for i, c := range cols {
		r.Columns = append(r.Columns, wal.Column{Name: c[0], TypeName: c[1], TypeMod: -1, Key: i < nkeys, TypeOID: oidOf(c[1])})
	}
	return r
}

func oidOf(typ string) uint32 {
	switch typ {
	case "int8":
		return 20
	case "int4":
		return 23
	case "text":
		return 25
	case "numeric":
		return 1700
	case "bool":
		return 16
	case "float8":
		return 701
	}
	return 25
}

// Values turns texts (nil = NULL) into replication values.
func Values(row []*string) []wal.Value {
	out := make([]wal.Value, len(row))
	for i, v := range row {
		if v == nil {
			out[i] = wal.Value{Kind: wal.Null}
		} else {
			out[i] = wal.Value{Kind: wal.Text, Bytes: []byte(*v)}
		}
	}
	return out
}

// S returns a pointer to s (a non-NULL value).
func S(s string) *string { return &s }

// CreateTable copies rows into a new table.
func (f *Fixture) CreateTable(rel *wal.Relation, rows [][]*string) {
	f.T.Helper()
	ctx := context.Background()
	w, err := f.Mirror.CopyRange(ctx, rel, wal.BlockRange{Index: 0, Of: 1})
	if err != nil {
		f.T.Fatal(err)
	}
	for _, r := range rows {
		if err := w.WriteRow(Values(r)); err != nil {
			f.T.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		f.T.Fatal(err)
	}
	f.LSN += 0x10
	if err := f.Mirror.TableCopied(ctx, rel, f.LSN); err != nil {
		f.T.Fatal(err)
	}
	// No commit lies below the copy's LSN here: the stream is there.
	if err := f.Mirror.StreamReached(ctx, f.LSN); err != nil {
		f.T.Fatal(err)
	}
	if f.Mirror.Durable() == 0 {
		if err := f.Mirror.SetResumeLSN(ctx, f.LSN); err != nil {
			f.T.Fatal(err)
		}
	}
}

// Tx collects the changes of one transaction.
type Tx struct {
	changes []*wal.Change
}

// Upsert writes a whole row (insert or update by primary key).
func (tx *Tx) Upsert(rel *wal.Relation, row []*string) {
	tx.changes = append(tx.changes, &wal.Change{Kind: wal.Update, Relation: rel, New: Values(row)})
}

// Insert inserts a row.
func (tx *Tx) Insert(rel *wal.Relation, row []*string) {
	tx.changes = append(tx.changes, &wal.Change{Kind: wal.Insert, Relation: rel, New: Values(row)})
}

// Delete deletes the row with the key texts (one per key column, in order).
func (tx *Tx) Delete(rel *wal.Relation, key ...string) {
	old := make([]wal.Value, len(rel.Columns))
	k := 0
	for i, c := range rel.Columns {
		if c.Key {
			old[i] = wal.Value{Kind: wal.Text, Bytes: []byte(key[k])}
			k++
		} else {
			old[i] = wal.Value{Kind: wal.Unchanged}
		}
	}
	tx.changes = append(tx.changes, &wal.Change{Kind: wal.Delete, Relation: rel, Old: old, OldKind: wal.OldKey})
}

// DeleteRow deletes a row of a REPLICA IDENTITY FULL table (the old row
// is its key).
func (tx *Tx) DeleteRow(rel *wal.Relation, row []*string) {
	tx.changes = append(tx.changes, &wal.Change{Kind: wal.Delete, Relation: rel, Old: Values(row), OldKind: wal.OldRow})
}

// Commit applies one transaction built by fn and returns its version.
func (f *Fixture) Commit(fn func(tx *Tx)) mirror.Version {
	f.T.Helper()
	end := f.Apply(fn)
	v, err := f.Mirror.VersionAt(end)
	if err != nil {
		f.T.Fatal(err)
	}
	return v
}

// KVTable copies a table public.t(id int8 primary key, v text) holding
// ids 0..n-1, each with v = "v0", and returns its relation and its rows
// as a model (id → v) for tests to keep up to date.
func (f *Fixture) KVTable(n int) (*wal.Relation, map[string]string) {
	f.T.Helper()
	rel := Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"v", "text"})
	model := map[string]string{}
	rows := make([][]*string, 0, n)
	for id := range n {
		k := strconv.Itoa(id)
		model[k] = "v0"
		rows = append(rows, []*string{S(k), S("v0")})
	}
	f.CreateTable(rel, rows)
	return rel, model
}

// ReadKV returns KVTable's table as of lsn (id → v), read through the
// mirror.
func ReadKV(ctx context.Context, m *mirror.Mirror, lsn wal.LSN) (map[string]string, error) {
	return ReadTable(ctx, m, "public.t", lsn)
}

// ReadTable returns a two-column table (key, value) as of lsn, read
// through the mirror.
func ReadTable(ctx context.Context, m *mirror.Mirror, name string, lsn wal.LSN) (map[string]string, error) {
	tr, err := m.TreeAt(ctx, name, lsn)
	if err != nil {
		return nil, err
	}
	cur, err := tr.Scan(ctx, nil, nil)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for cur.Next() {
		vals, err := rowenc.Decode(cur.Value())
		if err != nil {
			return nil, err
		}
		out[string(vals[0])] = string(vals[1])
	}
	return out, cur.Err()
}

// Whole reads every node under roots through a node store of its own over
// db (no cache shared with the mirror, no pending Puts, no engine-pinned
// root), so a node a sweep deleted cannot be served from memory. It
// returns the number of distinct nodes read.
func Whole(ctx context.Context, db *store.DB, roots []prolly.Root) (int, error) {
	ns := store.NewNodeStore[*prolly.Node](db, prolly.NodeCodec{})
	seen := map[prolly.Hash]bool{}
	var walk func(h prolly.Hash) error
	walk = func(h prolly.Hash) error {
		if seen[h] {
			return nil
		}
		seen[h] = true
		n, err := ns.Get(ctx, h)
		if err != nil {
			return err
		}
		if n.IsLeaf() {
			return nil
		}
		for i := range n.Len() {
			if err := walk(n.Child(i)); err != nil {
				return fmt.Errorf("under %s: %w", h.Short(), err)
			}
		}
		return nil
	}
	for _, r := range roots {
		if err := walk(r.Hash); err != nil {
			return len(seen), fmt.Errorf("root %s is not whole in the store: %w", r, err)
		}
	}
	return len(seen), nil
}
