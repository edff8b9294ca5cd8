package mirror

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// modelRow is a row of the model tables (id int8 key, a text, b text);
// nil is NULL.
type modelRow [3]*string

func sp(s string) *string { return &s }

func (r modelRow) values() []wal.Value {
	vals := make([]wal.Value, len(r))
	for i, c := range r {
		if c == nil {
			vals[i] = wal.Value{Kind: wal.Null}
		} else {
			vals[i] = wal.Value{Kind: wal.Text, Bytes: []byte(*c)}
		}
	}
	return vals
}

func (r modelRow) vrow() []byte {
	cols := make([][]byte, len(r))
	for i, c := range r {
		if c != nil {
			cols[i] = []byte(*c)
		}
	}
	return rowenc.Encode(cols)
}

func testRel(oid uint32, name string) *wal.Relation {
	return &wal.Relation{OID: oid, Schema: "public", Name: name, Identity: wal.IdentityDefault,
		Columns: []wal.Column{
			{Name: "id", TypeOID: 20, TypeName: "int8", TypeMod: -1, Key: true},
			{Name: "a", TypeOID: 25, TypeName: "text", TypeMod: -1},
			{Name: "b", TypeOID: 25, TypeName: "text", TypeMod: -1},
		}}
}

// modelDB is the reference: a map per table, and every committed version.
type modelDB struct {
	tables   map[string]map[int64]modelRow
	versions []modelVersion
}

type modelVersion struct {
	end    wal.LSN
	tables map[string]map[int64]modelRow
}

func (d *modelDB) snapshot() map[string]map[int64]modelRow {
	out := map[string]map[int64]modelRow{}
	for n, t := range d.tables {
		out[n] = maps.Clone(t)
	}
	return out
}

// harness drives a Mirror on a disk store through Sink calls.
type mharness struct {
	t    testing.TB
	dir  string
	opts Options
	db   *store.DB
	m    *Mirror
	lsn  wal.LSN
	rels map[string]*wal.Relation
	// flushDelay is set on every mirror opened (groups stay in flight).
	flushDelay time.Duration
	// changes counts the changes sent: a transaction that sent none is
	// no version (Mirror.commitEmpty).
	changes int
}

func newMHarness(t testing.TB, opts Options) *mharness {
	h := &mharness{t: t, dir: t.TempDir(), opts: opts, rels: map[string]*wal.Relation{}}
	h.open()
	t.Cleanup(func() {
		if h.m != nil {
			h.m.Close(context.Background())
		}
		if h.db != nil {
			h.db.Close()
		}
	})
	return h
}

func (h *mharness) open() {
	h.t.Helper()
	db, err := store.Open(store.Options{Dir: h.dir, CacheBytes: 8 << 20})
	if err != nil {
		h.t.Fatal(err)
	}
	h.db = db
	o := h.opts
	o.DB = db
	o.TempDir = h.t.TempDir()
	o.testFlushDelay = h.flushDelay // before Open: a recovered group's flush starts in it
	m, err := Open(h.t.Context(), o)
	if err != nil {
		h.t.Fatal(err)
	}
	h.m = m
	if head := m.Head().EndLSN; head > h.lsn {
		h.lsn = head
	}
}

// reopen closes cleanly (crash=false) or abandons the mirror and closes
// Badger under it without flushing the group (crash=true), then opens.
func (h *mharness) reopen(crash bool) {
	h.t.Helper()
	if crash {
		h.m.abandon()
	} else if err := h.m.Close(h.t.Context()); err != nil {
		h.t.Fatal(err)
	}
	h.m = nil
	if err := h.db.Close(); err != nil {
		h.t.Fatal(err)
	}
	h.db = nil
	h.open()
}

// copyTable creates a table through the CopySink with rows, split into
// ranges written concurrently.
func (h *mharness) copyTable(rel *wal.Relation, rows map[int64]modelRow, ranges int) {
	h.t.Helper()
	ctx := h.t.Context()
	ids := slices.Collect(maps.Keys(rows))
	rand.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	errs := make(chan error, ranges)
	for r := range ranges {
		go func() {
			w, err := h.m.CopyRange(ctx, rel, wal.BlockRange{Index: r, Of: ranges})
			if err != nil {
				errs <- err
				return
			}
			for i := r; i < len(ids); i += ranges {
				if err := w.WriteRow(rows[ids[i]].values()); err != nil {
					errs <- err
					return
				}
			}
			errs <- w.Close()
		}()
	}
	for range ranges {
		if err := <-errs; err != nil {
			h.t.Fatal(err)
		}
	}
	h.lsn += 10
	if err := h.m.TableCopied(ctx, rel, h.lsn); err != nil {
		h.t.Fatal(err)
	}
	// No commit lies below the copy's LSN here: the stream is there.
	if err := h.m.StreamReached(ctx, h.lsn); err != nil {
		h.t.Fatal(err)
	}
	h.rels[rel.QualifiedName()] = rel
}

func (h *mharness) begin() wal.TxnInfo {
	h.t.Helper()
	h.lsn += 100
	info := wal.TxnInfo{Xid: uint32(h.lsn), CommitLSN: h.lsn, EndLSN: h.lsn + 8, CommitTime: time.Unix(int64(h.lsn), 0)}
	if err := h.m.Begin(h.t.Context(), wal.TxnInfo{Xid: info.Xid, CommitLSN: info.CommitLSN, CommitTime: info.CommitTime}); err != nil {
		h.t.Fatal(err)
	}
	return info
}

func (h *mharness) change(c *wal.Change) {
	h.t.Helper()
	h.changes++
	if err := h.m.Change(h.t.Context(), c); err != nil {
		h.t.Fatal(err)
	}
}

func (h *mharness) commit(info wal.TxnInfo) {
	h.t.Helper()
	if err := h.m.Commit(h.t.Context(), info); err != nil {
		h.t.Fatal(err)
	}
	h.lsn = info.EndLSN
}

// treeRows reads a table at lsn.
func (h *mharness) treeRows(table string, lsn wal.LSN) map[string]string {
	h.t.Helper()
	tr, err := h.m.TreeAt(h.t.Context(), table, lsn)
	if err != nil {
		h.t.Fatal(err)
	}
	c, err := tr.Scan(h.t.Context(), nil, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]string{}
	for c.Next() {
		out[string(c.Key())] = string(c.Value())
	}
	if c.Err() != nil {
		h.t.Fatal(c.Err())
	}
	n, err := tr.Count(h.t.Context())
	if err != nil || n != uint64(len(out)) {
		h.t.Fatalf("%s at %s: count %d (%v), scanned %d", table, lsn, n, err, len(out))
	}
	return out
}

func modelRows(t *testing.T, rows map[int64]modelRow) map[string]string {
	codec, err := rowenc.NewKeyCodec(rowenc.KindInt8)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for id, r := range rows {
		k, err := codec.Encode(strconv.FormatInt(id, 10))
		if err != nil {
			t.Fatal(err)
		}
		out[string(k)] = string(r.vrow())
	}
	return out
}

func keyVals(id int64) []wal.Value {
	return []wal.Value{{Kind: wal.Text, Bytes: []byte(strconv.FormatInt(id, 10))}, {Kind: wal.Unchanged}, {Kind: wal.Unchanged}}
}

// TestModel runs random transactions (inserts, updates with unchanged
// TOAST columns, key changes, deletes, truncates of both tables, aborts,
// spilled big transactions) against a map model, with group flushes,
// clean reopens and crashes (Badger closed under a mirror that did not
// flush its group) in between, and checks every version against the
// model's copy at that commit.
func TestModel(t *testing.T) {
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 1))
	h := newMHarness(t, Options{GroupMaxRows: 40, GroupMaxAge: time.Hour, SpillRows: 60})
	// Half the runs keep each group in flight for a few commits, so
	// lookups read through the group being flushed.
	if rng.IntN(2) == 0 {
		h.flushDelay = 3 * time.Millisecond
		h.m.testFlushDelay = h.flushDelay
	}
	t.Logf("flush delay %v", h.flushDelay)
	model := &modelDB{tables: map[string]map[int64]modelRow{}}
	names := []string{"public.t", "public.u"}
	nextID := int64(1)
	str := func() *string {
		switch rng.IntN(6) {
		case 0:
			return nil
		case 1:
			return sp("")
		}
		return sp(fmt.Sprintf("v%d-%d", rng.IntN(1000), rng.Uint32()))
	}
	for i, n := range names {
		rows := map[int64]modelRow{}
		for range 200 {
			id := nextID
			nextID++
			rows[id] = modelRow{sp(strconv.FormatInt(id, 10)), str(), str()}
		}
		h.copyTable(testRel(uint32(100+i), n[len("public."):]), rows, 3)
		model.tables[n] = maps.Clone(rows)
	}
	copyLSN := h.lsn
	copied := model.snapshot()
	// crash drops what the mirror had not written when it died: the
	// streamer would send those commits again. Nothing acknowledged
	// (durable) may be lost.
	// lastEnd is the end of the last commit the mirror took, empty ones
	// included (Durable passes those too): what Durable reaches at a Sync.
	var lastEnd wal.LSN
	crash := func() {
		t.Helper()
		ack := h.m.Durable()
		h.reopen(true)
		head := h.m.Head().EndLSN
		lastEnd = h.m.Durable()
		// Durable may name an empty transaction (no version) past the
		// last version: what must survive is every version at or below
		// it, since streaming resumes there.
		for _, v := range model.versions {
			if v.end <= ack && v.end > copyLSN && v.end > head {
				t.Fatalf("acknowledged commit %s lost (durable %s): head after the crash %s", v.end, ack, head)
			}
		}
		for len(model.versions) > 0 && model.versions[len(model.versions)-1].end > head {
			model.versions = model.versions[:len(model.versions)-1]
		}
		model.tables = copied
		if n := len(model.versions); n > 0 {
			model.tables = model.versions[n-1].tables
		}
		model.tables = func() map[string]map[int64]modelRow {
			out := map[string]map[int64]modelRow{}
			for n, t := range model.tables {
				out[n] = maps.Clone(t)
			}
			return out
		}()
	}
	randomID := func(rows map[int64]modelRow) (int64, bool) {
		if len(rows) == 0 {
			return 0, false
		}
		ids := slices.Sorted(maps.Keys(rows))
		return ids[rng.IntN(len(ids))], true
	}
	const txns = 220
	for range txns {
		info := h.begin()
		sent := h.changes
		work := map[string]map[int64]modelRow{}
		for _, name := range names {
			work[name] = maps.Clone(model.tables[name])
		}
		size := 1 + rng.IntN(6)
		if rng.IntN(25) == 0 {
			size = 150 + rng.IntN(100) // spills
		}
		for range size {
			name := names[rng.IntN(len(names))]
			rel := h.rels[name]
			rows := work[name]
			switch op := rng.IntN(20); {
			case op < 7:
				id := nextID
				nextID++
				r := modelRow{sp(strconv.FormatInt(id, 10)), str(), str()}
				rows[id] = r
				h.change(&wal.Change{Kind: wal.Insert, Relation: rel, New: r.values()})
			case op < 12:
				id, ok := randomID(rows)
				if !ok {
					continue
				}
				r := rows[id]
				r[1] = str()
				newVals := r.values()
				if rng.IntN(2) == 0 {
					newVals[2] = wal.Value{Kind: wal.Unchanged} // TOAST kept
				} else {
					r[2] = str()
					newVals = r.values()
				}
				rows[id] = r
				h.change(&wal.Change{Kind: wal.Update, Relation: rel, New: newVals})
			case op < 15:
				id, ok := randomID(rows)
				if !ok {
					continue
				}
				nid := nextID
				nextID++
				r := rows[id]
				delete(rows, id)
				r[0] = sp(strconv.FormatInt(nid, 10))
				newVals := r.values()
				newVals[1] = wal.Value{Kind: wal.Unchanged}
				rows[nid] = r
				h.change(&wal.Change{Kind: wal.Update, Relation: rel, New: newVals, Old: keyVals(id), OldKind: wal.OldKey})
			case op < 19:
				id, ok := randomID(rows)
				if !ok {
					continue
				}
				delete(rows, id)
				h.change(&wal.Change{Kind: wal.Delete, Relation: rel, Old: keyVals(id), OldKind: wal.OldKey})
			default:
				if rng.IntN(4) != 0 {
					continue
				}
				c := &wal.Change{Kind: wal.Truncate, Cascade: true}
				for _, tn := range names {
					if rng.IntN(2) == 0 || tn == name {
						clear(work[tn])
						c.Truncated = append(c.Truncated, h.rels[tn])
					}
				}
				h.change(c)
			}
		}
		if rng.IntN(12) == 0 {
			if err := h.m.Abort(t.Context(), info); err != nil {
				t.Fatal(err)
			}
			h.lsn -= 100 // the same transaction comes again later
			continue
		}
		h.commit(info)
		lastEnd = info.EndLSN
		if h.changes == sent {
			continue // no change: no version
		}
		model.tables = work
		model.versions = append(model.versions, modelVersion{end: info.EndLSN, tables: model.snapshot()})
		switch rng.IntN(40) {
		case 0:
			h.reopen(false)
		case 1:
			crash()
		}
	}
	if err := h.m.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The last commit may be empty (no version, when every change of it
	// was skipped): durable is then past the last version (seed
	// 1796490594893761075 failed this comparing with the last version).
	if got, want := h.m.Durable(), max(lastEnd, model.versions[len(model.versions)-1].end); got != want {
		t.Fatalf("durable %s, last commit %s", got, want)
	}
	st := h.m.Stats()
	t.Logf("%d versions; stats since the last open %+v", len(model.versions), st)
	check := func() {
		t.Helper()
		for _, v := range model.versions {
			for _, name := range names {
				got, want := h.treeRows(name, v.end), modelRows(t, v.tables[name])
				if !maps.Equal(got, want) {
					t.Fatalf("%s at %s: %d rows, model %d rows; first differences:\n%s", name, v.end, len(got), len(want), diffRows(got, want))
				}
			}
			// An LSN between two commits shows the earlier one.
			if got, want := h.treeRows(names[0], v.end+50), modelRows(t, v.tables[names[0]]); !maps.Equal(got, want) {
				t.Fatalf("%s at %s (between commits) differs from the commit at %s", names[0], v.end+50, v.end)
			}
		}
		for _, name := range names {
			if got := h.treeRows(name, copyLSN); len(got) != 200 {
				t.Fatalf("%s at the copy LSN: %d rows, want 200", name, len(got))
			}
		}
	}
	check()
	vs, err := h.m.Versions(0, ^wal.LSN(0), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(model.versions) {
		t.Fatalf("%d versions listed, %d committed", len(vs), len(model.versions))
	}
	for i, v := range vs {
		if v.EndLSN != model.versions[i].end || v.CommitLSN != v.EndLSN-8 || v.CommitTime.Unix() != int64(v.CommitLSN) {
			t.Fatalf("version %d: %+v, want end %s", i, v, model.versions[i].end)
		}
	}
	crash()
	check()
}

// diffRows describes up to 5 keys where got and want differ.
func diffRows(got, want map[string]string) string {
	var out []string
	keys := slices.Sorted(maps.Keys(maps.Collect(func(yield func(string, bool) bool) {
		for k := range got {
			yield(k, true)
		}
		for k := range want {
			yield(k, true)
		}
	})))
	for _, k := range keys {
		g, gok := got[k]
		w, wok := want[k]
		if g != w || gok != wok {
			out = append(out, fmt.Sprintf("key %x: got %q (%v), want %q (%v)", k, g, gok, w, wok))
			if len(out) == 5 {
				break
			}
		}
	}
	return strings.Join(out, "\n")
}
