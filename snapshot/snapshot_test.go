package snapshot_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/snapshot"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

var _ snapshot.Head = (*head.Model)(nil)

var _ snapshot.OrderedHead = (*head.Model)(nil) // ordered.go

var seedFlag = seed.Flag()

// rig is a mirror fed through its Sink, with the in-memory HEAD
// subscribed to it.
type rig struct {
	t   *testing.T
	m   *mirror.Mirror
	db  *store.DB
	mod *head.Model
	sub *mirror.Subscription
	lsn wal.LSN
}

func newRig(t *testing.T) *rig {
	db, err := store.Open(store.Options{Dir: t.TempDir(), CacheBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	m, err := mirror.Open(t.Context(), mirror.Options{DB: db, TempDir: t.TempDir(), GroupMaxCommits: 7, SyncInterval: -1})
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	r := &rig{t: t, m: m, db: db, mod: head.New(head.Options{Heap: heap.Config{PageRows: 64}})}
	if r.sub, err = m.Subscribe(r.mod, mirror.SubscribeOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.sub.Close()
		if err := m.Close(context.Background()); err != nil {
			t.Error(err)
		}
		db.Close()
	})
	return r
}

// accounts is public.acc(id int8 key, bal int4, note text[, extra text]).
func accounts(extra bool) *wal.Relation {
	rel := &wal.Relation{OID: 7, Schema: "public", Name: "acc", Identity: wal.IdentityDefault,
		Columns: []wal.Column{
			{Name: "id", TypeOID: 20, TypeName: "int8", TypeMod: -1, Key: true},
			{Name: "bal", TypeOID: 23, TypeName: "int4", TypeMod: -1},
			{Name: "note", TypeOID: 25, TypeName: "text", TypeMod: -1},
		}}
	if extra {
		rel.Columns = append(rel.Columns, wal.Column{Name: "extra", TypeOID: 25, TypeName: "text", TypeMod: -1})
	}
	return rel
}

func row(rel *wal.Relation, id, bal int) []wal.Value {
	out := []wal.Value{}
	for _, s := range []string{strconv.Itoa(id), strconv.Itoa(bal), "n" + strconv.Itoa(id), "x"}[:len(rel.Columns)] {
		out = append(out, wal.Value{Kind: wal.Text, Bytes: []byte(s)})
	}
	return out
}

// load copies rel with ids 0, 2, …, 2(n-1) and bal = id.
func (r *rig) load(rel *wal.Relation, n int) {
	ctx := r.t.Context()
	w, err := r.m.CopyRange(ctx, rel, wal.BlockRange{Index: 0, Of: 1})
	if err != nil {
		r.t.Fatal(err)
	}
	for i := range n {
		if err := w.WriteRow(row(rel, 2*i, 2*i)); err != nil {
			r.t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		r.t.Fatal(err)
	}
	r.lsn += 10
	if err := r.m.TableCopied(ctx, rel, r.lsn); err != nil {
		r.t.Fatal(err)
	}
	// No commit lies below the copy's LSN here: the stream is there.
	if err := r.m.StreamReached(ctx, r.lsn); err != nil {
		r.t.Fatal(err)
	}
}

// commit applies one transaction of changes and returns its end LSN.
func (r *rig) commit(changes ...wal.Change) wal.LSN {
	ctx := r.t.Context()
	r.lsn += 100
	info := wal.TxnInfo{Xid: uint32(r.lsn), CommitLSN: r.lsn, CommitTime: time.Unix(int64(r.lsn), 0)}
	if err := r.m.Begin(ctx, info); err != nil {
		r.t.Fatal(err)
	}
	for i := range changes {
		if err := r.m.Change(ctx, &changes[i]); err != nil {
			r.t.Fatal(err)
		}
	}
	info.EndLSN = r.lsn + 8
	if err := r.m.Commit(ctx, info); err != nil {
		r.t.Fatal(err)
	}
	r.lsn = info.EndLSN
	return r.lsn
}

// settle waits until the model has applied everything the mirror holds.
func (r *rig) settle() {
	r.t.Helper()
	if err := r.m.Sync(r.t.Context()); err != nil {
		r.t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for r.sub.Delivered() < r.m.Head().EndLSN || !r.sub.Idle() {
		if err := r.sub.Err(); err != nil {
			r.t.Fatal(err)
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("delivered %s, head %s", r.sub.Delivered(), r.m.Head().EndLSN)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (r *rig) store(withHead bool) *snapshot.Store {
	st := &snapshot.Store{Mirror: r.m, Refs: refs.NewResolver(r.db, r.m)}
	if withHead {
		st.Head = r.mod
	}
	return st
}

// open opens table name in a snapshot of st at ref; the snapshot is
// released when the test ends.
func open(t *testing.T, st *snapshot.Store, ref, name string) (*snapshot.Snapshot, *snapshot.Table) {
	t.Helper()
	s, err := st.Open(t.Context(), ref)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Release)
	tb, err := s.Table(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return s, tb
}

// loaded is a rig with public.acc of n rows and one commit, applied to
// the model.
func loaded(t *testing.T, n int) *rig {
	r := newRig(t)
	rel := accounts(false)
	r.load(rel, n)
	r.commit(wal.Change{Kind: wal.Insert, Relation: rel, New: row(rel, 1, 1)})
	r.settle()
	return r
}

// dump reads everything a table offers: gets of keys, ranges with and
// without a projection.
func dump(ctx context.Context, t *snapshot.Table, keys []int) (string, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %v\n", t.Name, t.Rel.Columns)
	for _, k := range keys {
		key, err := t.Codec.Encode(strconv.Itoa(k))
		if err != nil {
			return "", err
		}
		r, found, err := t.Get(ctx, key, nil)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "get %d %v %q\n", k, found, r)
	}
	enc := func(k int) []byte { b, _ := t.Codec.Encode(strconv.Itoa(k)); return b }
	for _, q := range []struct {
		from, to []byte
		limit    int
		cols     []int
	}{
		{nil, nil, 0, nil},
		{enc(100), enc(5000), 0, []int{2, 0}},
		{enc(17), nil, 9000, nil}, // past one chunk of the model
		{nil, enc(300), 3, []int{1, 1}},
	} {
		n := 0
		err := t.Range(ctx, q.from, q.to, q.limit, q.cols, func(k, r []byte) error {
			fmt.Fprintf(&b, "%x %q\n", k, r)
			n++
			return nil
		})
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "range: %d rows\n", n)
	}
	return b.String(), nil
}

// TestHeadAndTreeAgree: a snapshot reads the same rows and relation from
// the in-memory HEAD as from the tree, at HEAD and at older versions
// (which only the tree holds).
func TestHeadAndTreeAgree(t *testing.T) {
	sd := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(sd, 1))
	r := newRig(t)
	rel := accounts(false)
	r.load(rel, 6000)
	for range 30 {
		var ch []wal.Change
		for range 20 {
			id := rng.IntN(13000)
			if rng.IntN(4) == 0 {
				ch = append(ch, wal.Change{Kind: wal.Delete, Relation: rel, Old: row(rel, id, 0), OldKind: wal.OldKey})
			} else {
				ch = append(ch, wal.Change{Kind: wal.Insert, Relation: rel, New: row(rel, id, rng.IntN(100))})
			}
		}
		r.commit(ch...)
	}
	r.settle()
	ctx := t.Context()
	keys := []int{0, 1, 2, 5000, 11998, 12999, 20000}
	for range 30 {
		keys = append(keys, rng.IntN(13000))
	}
	for _, ref := range []string{"", "HEAD", "HEAD~3", "HEAD~29"} {
		var got [2]string
		for i, withHead := range []bool{true, false} {
			s, err := r.store(withHead).Open(ctx, ref)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := s.Table(ctx, "acc")
			if err != nil {
				t.Fatal(err)
			}
			// HEAD~3 may come from the states the model keeps of its last
			// few batches (head.Table.past), or from the tree once they
			// were dropped; either way the rows must be the tree's.
			if want := withHead && (ref == "" || ref == "HEAD"); tb.FromHead() != want && ref != "HEAD~3" {
				t.Fatalf("ref %q, head %v: FromHead %v, want %v", ref, withHead, tb.FromHead(), want)
			}
			if got[i], err = dump(ctx, tb, keys); err != nil {
				t.Fatal(err)
			}
			s.Release()
		}
		if got[0] != got[1] {
			t.Fatalf("seed %d: ref %q: the model's snapshot differs from the tree's:\n%s\nwant\n%s", sd, ref, got[0], got[1])
		}
	}
}

// TestPinnedVersion: a snapshot keeps reading its version while later
// commits are applied to the mirror and the model (gets and ranges then
// go to the tree; the pinned pages stay as they were).
func TestPinnedVersion(t *testing.T) {
	r := loaded(t, 5000)
	rel := accounts(false)
	ctx := t.Context()
	s, tb := open(t, r.store(true), "HEAD", "public.acc")
	if !tb.FromHead() {
		t.Fatal("a settled HEAD is not read from the model")
	}
	keys := []int{1, 3, 4, 10}
	before, err := dump(ctx, tb, keys)
	if err != nil {
		t.Fatal(err)
	}
	at := s.LSN()
	for i := range 10 {
		r.commit(wal.Change{Kind: wal.Insert, Relation: rel, New: row(rel, 3+2*i, 7)},
			wal.Change{Kind: wal.Delete, Relation: rel, Old: row(rel, 4*i, 0), OldKind: wal.OldKey})
	}
	r.settle()
	if r.mod.LSN() == at {
		t.Fatal("the model did not move")
	}
	after, err := dump(ctx, tb, keys)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Fatalf("the snapshot at %s changed:\n%s\nwas\n%s", at, after, before)
	}
	p, ok, err := tb.Pages(nil, nil)
	if err != nil || !ok || p.Heap.Rows() != 5001 || p.Heap.LSN() > uint64(at) {
		t.Fatalf("pinned pages: ok %v err %v rows %d lsn %d, want 5001 rows at or before %s", ok, err, p.Heap.Rows(), p.Heap.LSN(), at)
	}
	if s.LSN() != at {
		t.Fatalf("the snapshot moved from %s to %s after a read", at, s.LSN())
	}
}

// TestPagesKeyRange: Pages narrows a key range to its rows through the
// model's index.
func TestPagesKeyRange(t *testing.T) {
	r := loaded(t, 3000)
	_, tb := open(t, r.store(true), "", "acc")
	from, _ := tb.Codec.Encode("100")
	to, _ := tb.Codec.Encode("200")
	p, ok, err := tb.Pages(from, to)
	if err != nil || !ok || p.Only == nil {
		t.Fatalf("Pages: ok %v err %v only %v", ok, err, p.Only)
	}
	var ids []int
	for _, id := range *p.Only {
		b, live := p.Heap.Row(nil, id)
		if !live {
			t.Fatalf("row id %d is not live", id)
		}
		v, _, err := rowenc.Column(b, 0)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(string(v))
		ids = append(ids, n)
	}
	want := []int{}
	for i := 100; i < 200; i += 2 {
		want = append(want, i)
	}
	if !slices.Equal(ids, want) {
		t.Fatalf("key range [100, 200): %v, want %v", ids, want)
	}
}

// TestRelationOfTheVersion: across a schema change (a resync with a new
// column), each version's snapshot pairs that version's columns with
// that version's rows (issue 21 item 3).
func TestRelationOfTheVersion(t *testing.T) {
	r := newRig(t)
	old := accounts(false)
	r.load(old, 100)
	v1 := r.commit(wal.Change{Kind: wal.Insert, Relation: old, New: row(old, 1, 1)})
	for i := range 10 { // past a commit group
		r.commit(wal.Change{Kind: wal.Insert, Relation: old, New: row(old, 1001+2*i, 1)})
	}
	r.settle()
	if err := r.m.MarkResync(t.Context(), "public.acc", "test"); err != nil {
		t.Fatal(err)
	}
	nu := accounts(true)
	r.load(nu, 50)
	r.commit(wal.Change{Kind: wal.Insert, Relation: nu, New: row(nu, 3, 3)})
	r.settle()
	ctx := t.Context()
	for _, c := range []struct {
		ref  string
		cols int
		rows int
	}{{v1.String(), 3, 101}, {"HEAD", 4, 51}} {
		for _, withHead := range []bool{true, false} {
			s, err := r.store(withHead).Open(ctx, c.ref)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := s.Table(ctx, "acc")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			err = tb.Range(ctx, nil, nil, 0, nil, func(_, b []byte) error {
				w, err := rowenc.Validate(b)
				if err == nil && w != len(tb.Rel.Columns) {
					err = fmt.Errorf("a row of %d values under %d columns", w, len(tb.Rel.Columns))
				}
				n++
				return err
			})
			if err != nil || len(tb.Rel.Columns) != c.cols || n != c.rows {
				t.Fatalf("%s (head %v, from head %v): %d columns, %d rows, err %v; want %d, %d", c.ref, withHead, tb.FromHead(), len(tb.Rel.Columns), n, err, c.cols, c.rows)
			}
			s.Release()
		}
	}
}

// TestReaderRegistered: GC's wait for readers waits for an open snapshot
// and not for a released one.
func TestReaderRegistered(t *testing.T) {
	r := newRig(t)
	rel := accounts(false)
	r.load(rel, 10)
	r.commit(wal.Change{Kind: wal.Insert, Relation: rel, New: row(rel, 1, 1)})
	ctx := t.Context()
	s, err := r.store(false).Open(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	err = r.m.WaitReaders(short)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitReaders with a snapshot open: %v, want it to wait", err)
	}
	s.Release()
	s.Release()
	if err := r.m.WaitReaders(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Table(ctx, "acc"); !errors.Is(err, snapshot.ErrReleased) {
		t.Fatalf("Table after Release: %v", err)
	}
	if _, err := r.store(false).Open(ctx, "nosuchtag"); err == nil {
		t.Fatal("a bad ref opened")
	}
	s2, err := r.store(false).Open(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Release()
	if _, err := s2.Table(ctx, "nope"); !errors.Is(err, mirror.ErrUnknownTable) {
		t.Fatalf("unknown table: %v", err)
	}
}

// flaky is a Head whose tables stop serving after a number of calls, as
// the model does when it moves past the snapshot's version mid-read.
type flaky struct {
	*head.Model
	serve int // calls answered before the table stops serving
}

func (f *flaky) HeadTable(name string) (snapshot.HeadTable, bool) {
	t, ok := f.Model.HeadTable(name)
	if !ok {
		return nil, false
	}
	return &flakyTable{HeadTable: t, left: f.serve}, true
}

type flakyTable struct {
	snapshot.HeadTable
	left int
}

func (t *flakyTable) HeadRange(from, to []byte, limit int, at wal.LSN, cols []int, fn func(key, row []byte) bool) (bool, error) {
	if t.left == 0 {
		return false, nil
	}
	t.left--
	return t.HeadTable.HeadRange(from, to, limit, at, cols, fn)
}

func (t *flakyTable) HeadGet(key []byte, at wal.LSN, dst []byte) ([]byte, bool, bool) {
	if t.left == 0 {
		return dst, false, false
	}
	t.left--
	return t.HeadTable.HeadGet(key, at, dst)
}

// TestRangeResumesFromTheTree: a range the model stops serving after some
// chunks goes on from the tree after the last key sent — every row once,
// in key order, whichever chunk the switch happens at.
func TestRangeResumesFromTheTree(t *testing.T) {
	r := loaded(t, 10000) // 2.4 chunks of the model's ranges
	ctx := t.Context()
	read := func(st *snapshot.Store, cols []int) (string, bool) {
		_, tb := open(t, st, "HEAD", "acc")
		var b bytes.Buffer
		err := tb.Range(ctx, nil, nil, 0, cols, func(k, v []byte) error {
			fmt.Fprintf(&b, "%x %q\n", k, v)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return b.String(), tb.FromHead()
	}
	for _, cols := range [][]int{nil, {2, 0}} {
		want, _ := read(r.store(false), cols)
		if n := bytes.Count([]byte(want), []byte("\n")); n != 10001 {
			t.Fatalf("the tree has %d rows, want 10001", n)
		}
		for serve := range 4 {
			st := r.store(false)
			st.Head = &flaky{Model: r.mod, serve: serve}
			got, fromHead := read(st, cols)
			if !fromHead {
				t.Fatalf("serve %d: not read from the model", serve)
			}
			if got != want {
				t.Fatalf("serve %d chunks, cols %v: the resumed range differs from the tree's (%d vs %d bytes)", serve, cols, len(got), len(want))
			}
		}
	}
}
