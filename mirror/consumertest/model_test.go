package consumertest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

func rel(oid uint32, name string) *wal.Relation {
	return &wal.Relation{OID: oid, Schema: "public", Name: name, Identity: wal.IdentityDefault,
		Columns: []wal.Column{
			{Name: "id", TypeOID: 20, TypeName: "int8", TypeMod: -1, Key: true},
			{Name: "v", TypeOID: 25, TypeName: "text", TypeMod: -1},
		}}
}

func text(s string) wal.Value {
	return wal.Value{Kind: wal.Text, Bytes: []byte(s)}
}

func row(id int, v string) []wal.Value {
	return []wal.Value{text(strconv.Itoa(id)), text(v)}
}

// rig drives a Mirror on a disk store through its Sink and CopySink.
type rig struct {
	t    *testing.T
	dir  string
	db   *store.DB
	m    *mirror.Mirror
	lsn  wal.LSN
	rels map[string]*wal.Relation
}

func (r *rig) open() {
	r.t.Helper()
	db, err := store.Open(store.Options{Dir: r.dir, CacheBytes: 8 << 20})
	if err != nil {
		r.t.Fatal(err)
	}
	m, err := mirror.Open(r.t.Context(), mirror.Options{DB: db, TempDir: r.t.TempDir(), SpillRows: 300,
		GroupMaxCommits: 40, SyncInterval: -1})
	if err != nil {
		db.Close()
		r.t.Fatal(err)
	}
	r.db, r.m = db, m
	r.lsn = max(r.lsn, m.Head().EndLSN)
}

func (r *rig) close() {
	r.t.Helper()
	if err := r.m.Close(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	if err := r.db.Close(); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) copyTable(rl *wal.Relation, rows map[int]string) {
	r.t.Helper()
	ctx := r.t.Context()
	w, err := r.m.CopyRange(ctx, rl, wal.BlockRange{Index: 0, Of: 1})
	if err != nil {
		r.t.Fatal(err)
	}
	for id, v := range rows {
		if err := w.WriteRow(row(id, v)); err != nil {
			r.t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		r.t.Fatal(err)
	}
	r.lsn += 10
	if err := r.m.TableCopied(ctx, rl, r.lsn); err != nil {
		r.t.Fatal(err)
	}
	// No commit lies below the copy's LSN here: the stream is there.
	if err := r.m.StreamReached(ctx, r.lsn); err != nil {
		r.t.Fatal(err)
	}
}

// txn commits one transaction of random changes to the tables in pg (the
// reference, updated alongside).
func (r *rig) txn(rng *rand.Rand, pg map[string]map[int]string) {
	r.t.Helper()
	ctx := r.t.Context()
	r.lsn += 100
	info := wal.TxnInfo{Xid: uint32(r.lsn), CommitLSN: r.lsn, CommitTime: time.Unix(int64(r.lsn), 0)}
	if err := r.m.Begin(ctx, info); err != nil {
		r.t.Fatal(err)
	}
	n := 1 + rng.IntN(5)
	if rng.IntN(20) == 0 {
		n = 400 + rng.IntN(400) // spills
	}
	for range n {
		name := "public.a"
		if rng.IntN(2) == 0 {
			name = "public.b"
		}
		rl, rows := r.rels[name], pg[name]
		id := rng.IntN(500)
		var c wal.Change
		switch k := rng.IntN(100); {
		case k == 0:
			c = wal.Change{Kind: wal.Truncate, Truncated: []*wal.Relation{rl}}
			clear(rows)
		case k < 30:
			if _, ok := rows[id]; !ok {
				continue
			}
			c = wal.Change{Kind: wal.Delete, Relation: rl, Old: row(id, ""), OldKind: wal.OldKey}
			delete(rows, id)
		default:
			v := fmt.Sprint("v", rng.IntN(1e6))
			kind := wal.Insert
			if _, ok := rows[id]; ok {
				kind = wal.Update
			}
			c = wal.Change{Kind: kind, Relation: rl, New: row(id, v)}
			rows[id] = v
		}
		if err := r.m.Change(ctx, &c); err != nil {
			r.t.Fatal(err)
		}
	}
	info.EndLSN = r.lsn + 8
	if err := r.m.Commit(ctx, info); err != nil {
		r.t.Fatal(err)
	}
	r.lsn = info.EndLSN
}

// waitDelivered waits until the subscription delivered the head.
func waitDelivered(t *testing.T, r *rig, s *mirror.Subscription) {
	t.Helper()
	if err := r.m.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for s.Delivered() < r.m.Head().EndLSN || !s.Idle() {
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivered %s, head %s", s.Delivered(), r.m.Head().EndLSN)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func compare(t *testing.T, seed uint64, r *rig, mod *Model, what string) Result {
	t.Helper()
	res, err := mod.Compare(t.Context(), r.m)
	if err != nil {
		t.Fatalf("seed %d: %s: %v", seed, what, err)
	}
	return res
}

// TestModelConsumer runs random transactions (spilled ones, truncates)
// and resyncs through a mirror with a model consumer subscribed, and
// checks the model against the trees: after catch-up at the head, and
// after the consumer "crashes" (its unsaved state is dropped and it is
// loaded from its file) at its saved position, then again at the head
// once caught up. A slow consumer must overflow its queue and still end
// equal.
// seedFlag replays a failing random test: go test ./mirror/consumertest -run X -seed N.
var seedFlag = seed.Flag()

func TestModelConsumer(t *testing.T) {
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 7))
	r := &rig{t: t, dir: t.TempDir(), rels: map[string]*wal.Relation{"public.a": rel(1, "a"), "public.b": rel(2, "b")}}
	r.open()
	defer func() {
		if r.m != nil {
			r.close()
		}
	}()
	pg := map[string]map[int]string{"public.a": {}, "public.b": {}}
	for i := range 200 {
		pg["public.a"][i] = "a" + strconv.Itoa(i)
	}
	path := filepath.Join(t.TempDir(), "model")
	mod, err := Load(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := r.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.copyTable(r.rels["public.a"], pg["public.a"])
	r.copyTable(r.rels["public.b"], pg["public.b"])
	for round := range 6 {
		for range 150 {
			r.txn(rng, pg)
		}
		if round == 2 {
			// A resync replaces b's tree: the consumer gets it whole.
			if err := r.m.MarkResync(t.Context(), "public.b", "test"); err != nil {
				t.Fatal(err)
			}
			r.copyTable(r.rels["public.b"], pg["public.b"])
		}
		waitDelivered(t, r, sub)
		if res := compare(t, seed, r, mod, fmt.Sprintf("round %d at the head", round)); res.Tables != 2 {
			t.Fatalf("seed %d: round %d: compared %+v", seed, round, res)
		}
		// The consumer saves every 0-150 ms: kill it (drop its memory)
		// and the mirror (close, reopen) and resubscribe from its file.
		if err := sub.Close(); err != nil {
			t.Fatal(err)
		}
		r.close()
		r.open()
		if mod, err = Load(path, time.Duration(rng.IntN(150))*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		res := compare(t, seed, r, mod, fmt.Sprintf("round %d after the kill", round))
		t.Logf("round %d: saved model at %s equals the trees (%d tables, %d rows, skipped %v)", round, res.LSN, res.Tables, res.Rows, res.Skipped)
		if round == 4 {
			mod.Slow = 2 * time.Millisecond
		}
		opts := mirror.SubscribeOptions{}
		if round >= 4 {
			opts.QueueBytes = 4 << 10
		}
		if sub, err = r.m.Subscribe(mod, opts); err != nil {
			t.Fatal(err)
		}
		if round == 5 {
			for range 300 {
				r.txn(rng, pg)
			}
			waitDelivered(t, r, sub)
			compare(t, seed, r, mod, "slow consumer at the head")
			if sub.Overflows() == 0 {
				t.Fatalf("seed %d: a consumer sleeping 2 ms per batch never overflowed a 4 KiB queue", seed)
			}
			t.Logf("slow consumer: %d overflows, %d catch-ups", sub.Overflows(), sub.CatchUps())
		}
	}
	waitDelivered(t, r, sub)
	compare(t, seed, r, mod, "end")
	// And the model equals the reference itself.
	for name, rows := range pg {
		tr, err := r.m.TreeAt(t.Context(), name, r.m.Head().EndLSN)
		if err != nil {
			t.Fatal(err)
		}
		n, err := tr.Count(t.Context())
		if err != nil || int(n) != len(rows) {
			t.Fatalf("seed %d: %s has %d rows (%v), reference %d", seed, name, n, err, len(rows))
		}
	}
	b := mod.Batches()
	t.Logf("batches since the last load: %v", b)
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
}
