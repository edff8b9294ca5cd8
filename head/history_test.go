package head

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/wal"
)

var _ history.HeadReader = (*Model)(nil)

// TestHistoryReadsThroughTheModel: history.Service answers get and bounded
// scans through the model exactly as it does from the trees, at HEAD and
// (falling back to the trees) at older versions.
func TestHistoryReadsThroughTheModel(t *testing.T) {
	sd := seed(t)
	rng := rand.New(rand.NewPCG(sd, 5))
	f := openFeed(t)
	rel := relation(1, "acc")
	rows := map[int]int{}
	for i := range 500 {
		rows[i*2] = i
	}
	mod, sub := f.subscribeModel(t)
	f.copyTable(rel, rows)
	for range 50 {
		id := rng.IntN(1000)
		f.commit([]wal.Change{{Kind: wal.Insert, Relation: rel, New: vals(id, rng.IntN(9), "z")}})
	}
	f.waitDelivered(sub)
	plain := history.New(f.db, f.m)
	fast := history.New(f.db, f.m)
	fast.SetHead(mod)
	ctx := t.Context()
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	for _, asOf := range []string{"", "HEAD", "HEAD~10"} {
		var pks []string
		for range 20 {
			pks = append(pks, strconv.Itoa(rng.IntN(1100)))
		}
		for _, cols := range [][]string{nil, {"note", "id"}, {"bal", "bal"}} {
			req := history.ReadRequest{Table: "public.acc", AsOf: asOf, PK: pks, Columns: cols}
			a, err1 := plain.Get(ctx, req)
			b, err2 := fast.Get(ctx, req)
			if err1 != nil || err2 != nil || js(a) != js(b) {
				t.Fatalf("seed %d: get as of %q: tree %s (%v), model %s (%v)", sd, asOf, js(a), err1, js(b), err2)
			}
			raw, err := fast.GetJSON(ctx, req, nil)
			if err != nil || string(raw) != js(b) {
				t.Fatalf("seed %d: GetJSON %s (%v), want %s", sd, raw, err, js(b))
			}
		}
		for _, sr := range []history.ReadRequest{
			{Table: "public.acc", AsOf: asOf, Limit: 100},
			{Table: "public.acc", AsOf: asOf, From: "100", To: "400", Limit: 1000},
			{Table: "public.acc", AsOf: asOf, From: "999", Limit: 5},
			{Table: "public.acc", AsOf: asOf, From: "10", Limit: 50, Columns: []string{"note", "id", "note"}},
		} {
			collect := func(s *history.Service) (string, error) {
				var out []any
				err := s.Scan(ctx, sr, func(h history.ReadHeader) error { out = append(out, h); return nil },
					func(r *history.Row) error { out = append(out, *r); return nil })
				return js(out), err
			}
			a, err1 := collect(plain)
			b, err2 := collect(fast)
			if err1 != nil || err2 != nil || a != b {
				t.Fatalf("seed %d: scan %+v: tree %s (%v), model %s (%v)", sd, sr, a, err1, b, err2)
			}
		}
	}
	// At "" and HEAD the model answered 20 keys 3 times (twice through
	// Get and GetJSON) and 4 scans each; HEAD~10 went to the trees.
	if got := mod.Served(); got != 2*(20*3*2+4) {
		t.Fatalf("the model answered %d reads, want %d", got, 2*(20*3*2+4))
	}
	// A column that does not exist is the same error through both.
	_, err1 := plain.Get(ctx, history.ReadRequest{Table: "public.acc", PK: []string{"1"}, Columns: []string{"nope"}})
	_, err2 := fast.Get(ctx, history.ReadRequest{Table: "public.acc", PK: []string{"1"}, Columns: []string{"nope"}})
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() || !errors.Is(err2, history.ErrBadRequest) {
		t.Fatalf("unknown column: tree %v, model %v", err1, err2)
	}
}

// TestKeylessThroughTheModel: a REPLICA IDENTITY FULL table (no key; the
// tree keys rows by their bytes and an occurrence number, so duplicates
// are separate rows) is held and served by the model like any other:
// bounded scans at HEAD answer exactly what the tree answers, duplicates,
// deletes of one copy and projections included; get is refused the same
// way through both (no key to look up).
func TestKeylessThroughTheModel(t *testing.T) {
	sd := seed(t)
	rng := rand.New(rand.NewPCG(sd, 11))
	f := openFeed(t)
	rel := relation(2, "log")
	rel.Identity = wal.IdentityFull // every column is in the identity
	for i := range rel.Columns {
		rel.Columns[i].Key = true
	}
	mod, sub := f.subscribeModel(t)
	rows := map[int]int{}
	for i := range 300 {
		rows[i] = i % 7
	}
	f.copyTable(rel, rows)
	var live [][]wal.Value
	for range 40 {
		var ch []wal.Change
		for range 5 {
			if len(live) > 0 && rng.IntN(3) == 0 {
				i := rng.IntN(len(live))
				ch = append(ch, wal.Change{Kind: wal.Delete, Relation: rel, OldKind: wal.OldRow, Old: live[i]})
				live = append(live[:i], live[i+1:]...)
				continue
			}
			v := vals(rng.IntN(20), rng.IntN(3), "dup") // many duplicates
			ch = append(ch, wal.Change{Kind: wal.Insert, Relation: rel, New: v})
			live = append(live, v)
		}
		f.commit(ch)
	}
	f.waitDelivered(sub)
	plain := history.New(f.db, f.m)
	fast := history.New(f.db, f.m)
	fast.SetHead(mod)
	ctx := t.Context()
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	served := mod.Served()
	for _, sr := range []history.ReadRequest{
		{Table: "public.log", Limit: 100_000},
		{Table: "public.log", Limit: 7},
		{Table: "public.log", Limit: 1000, Columns: []string{"note", "bal"}},
		{Table: "public.log", AsOf: "HEAD~3", Limit: 1000},
	} {
		collect := func(s *history.Service) (string, int, error) {
			var out []any
			n := 0
			err := s.Scan(ctx, sr, func(h history.ReadHeader) error { out = append(out, h); return nil },
				func(r *history.Row) error { out = append(out, *r); n++; return nil })
			return js(out), n, err
		}
		a, n, err1 := collect(plain)
		b, _, err2 := collect(fast)
		if err1 != nil || err2 != nil || a != b {
			t.Fatalf("seed %d: scan %+v: tree %s (%v), model %s (%v)", sd, sr, a, err1, b, err2)
		}
		if sr.Limit == 100_000 && n != 300+len(live) {
			t.Fatalf("seed %d: %d rows, want %d", sd, n, 300+len(live))
		}
	}
	if got := mod.Served() - served; got != 3 {
		t.Fatalf("the model answered %d scans, want 3", got)
	}
	_, err1 := plain.Get(ctx, history.ReadRequest{Table: "public.log", PK: []string{"1"}})
	_, err2 := fast.Get(ctx, history.ReadRequest{Table: "public.log", PK: []string{"1"}})
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Fatalf("get of a keyless table: tree %v, model %v", err1, err2)
	}
	if got := mod.Len("public.log"); got != 300+len(live) {
		t.Fatalf("model holds %d rows, want %d", got, 300+len(live))
	}
}
