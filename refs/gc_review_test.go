package refs_test

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// reviewWhole reads every node under every root through a node store of
// its own over db (no cache shared with the mirror, no pending Puts, no
// engine-pinned root), so a node a sweep deleted cannot be served from
// memory.
func reviewWhole(ctx context.Context, t *testing.T, db *store.DB, roots []prolly.Root) {
	t.Helper()
	if _, err := historytest.Whole(ctx, db, roots); err != nil {
		t.Fatal(err)
	}
}

// reviewRows reads public.t at lsn from the mirror as id → v.
func reviewRows(ctx context.Context, m *mirror.Mirror, lsn wal.LSN) (map[string]string, prolly.Root, error) {
	tr, err := m.TreeAt(ctx, "public.t", lsn)
	if err != nil {
		return nil, prolly.Root{}, err
	}
	c, err := tr.Scan(ctx, nil, nil)
	if err != nil {
		return nil, prolly.Root{}, err
	}
	out := map[string]string{}
	for c.Next() {
		vals, err := rowenc.Decode(c.Value())
		if err != nil {
			return nil, prolly.Root{}, err
		}
		out[string(vals[0])] = string(vals[1])
	}
	return out, tr.Root, c.Err()
}

// TestReviewRefsAfterExpiry resolves every kind of ref against a history
// whose older part expired (one tag kept below the horizon): HEAD~N
// reaches back exactly to the oldest retained version and no further,
// and its error names that version; an LSN or a time inside the expired
// part is an unknown ref naming the oldest retained version, never an
// older or newer kept version; an LSN between retained commits is the
// latest commit at or before it; the tag resolves to its commit.
func TestReviewRefsAfterExpiry(t *testing.T) {
	f := historytest.New(t)
	ctx := t.Context()
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"v", "text"})
	f.CreateTable(rel, [][]*string{{S("1"), S("a")}})
	var vs []mirror.Version
	for i := range 60 {
		vs = append(vs, f.Commit(func(tx *historytest.Tx) {
			tx.Upsert(rel, []*string{S(strconv.Itoa(i % 9)), S("v" + strconv.Itoa(i))})
		}))
	}
	r := refs.NewResolver(f.DB, f.Mirror)
	tagged := vs[7]
	if err := r.Catalog.CreateTag(ctx, refs.Tag{Name: "keep", LSN: tagged.EndLSN, Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	st, err := refs.Expire(ctx, f.Mirror, r.Catalog, vs[35].CommitTime)
	if err != nil {
		t.Fatal(err)
	}
	horizon, islands := f.Mirror.Horizon()
	if horizon == 0 || horizon > vs[35].EndLSN || st.Islands != 1 || len(islands) != 1 {
		t.Fatalf("expire %+v: horizon %s, islands %v", st, horizon, islands)
	}
	oldest := -1
	for i, v := range vs {
		if v.EndLSN >= horizon {
			oldest = i
			break
		}
	}
	last := len(vs) - 1
	oldestLSN := vs[oldest].EndLSN.String()
	for n := 0; n <= last+1; n++ {
		ref := "HEAD~" + strconv.Itoa(n)
		p, err := r.Resolve(ctx, ref)
		if n <= last-oldest {
			if err != nil || p.Version.EndLSN != vs[last-n].EndLSN {
				t.Fatalf("%s = %s, %v; want %s", ref, p.Version.EndLSN, err, vs[last-n].EndLSN)
			}
			continue
		}
		if !errors.Is(err, refs.ErrUnknownRef) || !strings.Contains(err.Error(), oldestLSN) {
			t.Fatalf("%s (past the horizon) = %s, %v; want an unknown ref naming %s", ref, p.Version.EndLSN, err, oldestLSN)
		}
	}
	inIsland := func(l wal.LSN) bool { return islands[0].Base <= l && l <= islands[0].Kept }
	for i, v := range vs {
		for _, l := range []wal.LSN{v.EndLSN, v.EndLSN + 1} {
			p, err := r.Resolve(ctx, l.String())
			switch {
			case v.EndLSN >= horizon || inIsland(l):
				if err != nil || p.Version.EndLSN != v.EndLSN {
					t.Fatalf("LSN %s (version %d) = %s, %v; want %s", l, i, p.Version.EndLSN, err, v.EndLSN)
				}
			case err == nil:
				t.Fatalf("LSN %s (expired version %d) resolved to %s", l, i, p.Version.EndLSN)
			case !errors.Is(err, refs.ErrUnknownRef) || !strings.Contains(err.Error(), oldestLSN):
				t.Fatalf("LSN %s (expired version %d): %v; want an unknown ref naming %s", l, i, err, oldestLSN)
			}
		}
		p, err := r.Resolve(ctx, "@"+v.CommitTime.Format(time.RFC3339Nano))
		if v.EndLSN >= horizon {
			if err != nil || p.Version.EndLSN != v.EndLSN {
				t.Fatalf("@time of version %d = %s, %v; want %s", i, p.Version.EndLSN, err, v.EndLSN)
			}
		} else if err == nil && p.Version.EndLSN != v.EndLSN {
			t.Fatalf("@time of expired version %d resolved to another version %s", i, p.Version.EndLSN)
		} else if err != nil && !errors.Is(err, refs.ErrUnknownRef) {
			t.Fatalf("@time of expired version %d: %v", i, err)
		}
	}
	p, err := r.Resolve(ctx, "keep")
	if err != nil || p.Version.EndLSN != tagged.EndLSN {
		t.Fatalf("tag keep = %s, %v; want %s", p.Version.EndLSN, err, tagged.EndLSN)
	}
	lsns, err := r.LatestFirst(vs[last].EndLSN, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lsns {
		if l < horizon && !inIsland(l) {
			t.Fatalf("LatestFirst lists expired commit %s", l)
		}
	}
}

// TestReviewCollectBesideSpillAndCopy collects garbage while a large
// transaction is open with chunks spilled to scratch trees (some before
// the collection, more between its mark of stored records and its
// collection of the mirror's roots), and while the table is resynced in
// that same window (a copy built and recorded during the mark). After the
// transaction commits, the head and every retained version read back
// against the model, and every tree stored records name is whole in the
// store read through a fresh node store.
func TestReviewCollectBesideSpillAndCopy(t *testing.T) {
	f := historytest.NewOpts(t, 1<<20, func(o *mirror.Options) { o.SpillRows = 25 })
	ctx := context.Background()
	m := f.Mirror
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"v", "text"})
	cur := map[string]string{}
	var rows [][]*string
	for id := range 400 {
		k := strconv.Itoa(id)
		cur[k] = "v0"
		rows = append(rows, []*string{S(k), S("v0")})
	}
	f.CreateTable(rel, rows)
	states := map[wal.LSN]map[string]string{}
	var vs []mirror.Version
	for i := range 80 {
		v := f.Commit(func(tx *historytest.Tx) {
			for j := range 1 + i%3 {
				id := strconv.Itoa((i*53 + j*7) % 400)
				tx.Upsert(rel, []*string{S(id), S("c" + strconv.Itoa(i))})
				cur[id] = "c" + strconv.Itoa(i)
			}
		})
		vs = append(vs, v)
		states[v.EndLSN] = maps.Clone(cur)
	}
	c := refs.NewCatalog(f.DB)
	if _, err := refs.Expire(ctx, m, c, vs[50].CommitTime); err != nil {
		t.Fatal(err)
	}

	// A large transaction, open across the collection.
	f.LSN += 0x100
	info := wal.TxnInfo{Xid: 7, CommitLSN: f.LSN, EndLSN: f.LSN + 8, CommitTime: f.Time.Add(time.Second)}
	if err := m.Begin(ctx, wal.TxnInfo{Xid: info.Xid, CommitLSN: info.CommitLSN, CommitTime: info.CommitTime}); err != nil {
		t.Fatal(err)
	}
	if err := m.Relation(ctx, rel); err != nil {
		t.Fatal(err)
	}
	next := maps.Clone(cur)
	change := func(from, to int) {
		for id := from; id < to; id++ {
			k := strconv.Itoa(id)
			next[k] = "big"
			ch := &wal.Change{Kind: wal.Update, Relation: rel, New: historytest.Values([]*string{S(k), S("big")})}
			if err := m.Change(ctx, ch); err != nil {
				t.Fatal(err)
			}
		}
	}
	change(0, 60) // two chunks spilled before the GC starts
	copied := false
	st, err := refs.CollectGarbage(ctx, refs.GCOptions{DB: f.DB, Mirror: m, Catalog: c, AfterMark: func() {
		change(60, 130) // more chunks, on scratch trees the mark did not see
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("gc during an open spilled transaction: %d roots, %d live, deleted %d", st.Roots, st.Live, st.Deleted)
	if st.Deleted == 0 {
		t.Error("nothing deleted although versions expired")
	}
	change(130, 150)
	if err := m.Commit(ctx, info); err != nil {
		t.Fatal(err)
	}
	f.LSN, f.Time = info.EndLSN, info.CommitTime
	cur = next
	states[info.EndLSN] = maps.Clone(cur)
	vs = append(vs, mirror.Version{EndLSN: info.EndLSN})

	// A resync recorded during the next collection's mark.
	st, err = refs.CollectGarbage(ctx, refs.GCOptions{DB: f.DB, Mirror: m, Catalog: c, AfterMark: func() {
		if err := m.MarkResync(ctx, "public.t", "review"); err != nil {
			t.Error(err)
			return
		}
		var rows [][]*string
		for k, v := range cur {
			rows = append(rows, []*string{S(k), S(v)})
		}
		f.CreateTable(rel, rows)
		copied = true
	}})
	if err != nil || !copied {
		t.Fatalf("gc during a resync: %v (copied %v)", err, copied)
	}
	for i := range 10 {
		v := f.Commit(func(tx *historytest.Tx) {
			id := strconv.Itoa(i * 11)
			tx.Upsert(rel, []*string{S(id), S("after" + strconv.Itoa(i))})
			cur[id] = "after" + strconv.Itoa(i)
		})
		vs = append(vs, v)
		states[v.EndLSN] = maps.Clone(cur)
	}
	if err := m.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	horizon, _ := m.Horizon()
	for _, v := range vs {
		if v.EndLSN < horizon {
			continue
		}
		got, _, err := reviewRows(ctx, m, v.EndLSN)
		if err != nil || !maps.Equal(got, states[v.EndLSN]) {
			t.Fatalf("retained version %s after the collections: err %v", v.EndLSN, err)
		}
	}
	roots, err := m.GroupRoots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	reviewWhole(ctx, t, f.DB, roots)
	for _, ti := range m.Tables() {
		reviewWhole(ctx, t, f.DB, []prolly.Root{ti.Root})
	}
}
