package head

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/heap"
	seedpkg "github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

func relation(oid uint32, name string) *wal.Relation {
	return &wal.Relation{OID: oid, Schema: "public", Name: name, Identity: wal.IdentityDefault,
		Columns: []wal.Column{
			{Name: "id", TypeOID: 20, TypeName: "int8", TypeMod: -1, Key: true},
			{Name: "bal", TypeOID: 23, TypeName: "int4", TypeMod: -1},
			{Name: "note", TypeOID: 25, TypeName: "text", TypeMod: -1},
		}}
}

func vals(id, bal int, note string) []wal.Value {
	t := func(s string) wal.Value { return wal.Value{Kind: wal.Text, Bytes: []byte(s)} }
	return []wal.Value{t(strconv.Itoa(id)), t(strconv.Itoa(bal)), t(note)}
}

// feed drives a mirror (memory-light disk store) through its Sink.
type feed struct {
	t   *testing.T
	m   *mirror.Mirror
	db  *store.DB
	lsn wal.LSN
}

// subscribeModel subscribes a new model (small heap pages) to f's
// mirror; the subscription is closed when the test ends.
func (f *feed) subscribeModel(t *testing.T) (*Model, *mirror.Subscription) {
	t.Helper()
	mod := New(Options{Heap: heapSmallPages})
	sub, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Close() })
	return mod, sub
}

func openFeed(t *testing.T) *feed {
	db, err := store.Open(store.Options{Dir: t.TempDir(), CacheBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	m, err := mirror.Open(t.Context(), mirror.Options{DB: db, TempDir: t.TempDir(), SpillRows: 300,
		GroupMaxCommits: 40, SyncInterval: -1})
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	f := &feed{t: t, m: m, db: db}
	t.Cleanup(func() {
		if err := m.Close(context.Background()); err != nil {
			t.Error(err)
		}
		db.Close()
	})
	return f
}

func (f *feed) copyTable(rel *wal.Relation, rows map[int]int) {
	ctx := f.t.Context()
	w, err := f.m.CopyRange(ctx, rel, wal.BlockRange{Index: 0, Of: 1})
	if err != nil {
		f.t.Fatal(err)
	}
	for id, bal := range rows {
		if err := w.WriteRow(vals(id, bal, "n"+strconv.Itoa(id))); err != nil {
			f.t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		f.t.Fatal(err)
	}
	f.copied(rel)
}

// copied reports rel's ranges copied and the stream at the copy's LSN
// (no commit lies below it here).
func (f *feed) copied(rel *wal.Relation) {
	f.t.Helper()
	ctx := f.t.Context()
	f.lsn += 10
	if err := f.m.TableCopied(ctx, rel, f.lsn); err != nil {
		f.t.Fatal(err)
	}
	if err := f.m.StreamReached(ctx, f.lsn); err != nil {
		f.t.Fatal(err)
	}
}

func (f *feed) commit(changes []wal.Change) {
	ctx := f.t.Context()
	f.lsn += 100
	info := wal.TxnInfo{Xid: uint32(f.lsn), CommitLSN: f.lsn, CommitTime: time.Unix(int64(f.lsn), 0)}
	if err := f.m.Begin(ctx, info); err != nil {
		f.t.Fatal(err)
	}
	for i := range changes {
		if err := f.m.Change(ctx, &changes[i]); err != nil {
			f.t.Fatal(err)
		}
	}
	info.EndLSN = f.lsn + 8
	if err := f.m.Commit(ctx, info); err != nil {
		f.t.Fatal(err)
	}
	f.lsn = info.EndLSN
}

func (f *feed) waitDelivered(s *mirror.Subscription) {
	f.t.Helper()
	if err := f.m.Sync(f.t.Context()); err != nil {
		f.t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for s.Delivered() < f.m.Head().EndLSN || !s.Idle() {
		if err := s.Err(); err != nil {
			f.t.Fatal(err)
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("delivered %s, head %s", s.Delivered(), f.m.Head().EndLSN)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// seedFlag replays a failing random test: go test ./head -run X -seed N.
var seedFlag = seedpkg.Flag()

// seed is the seed of a random test: -seed when given, else the clock;
// a failing t prints it with the command that replays it.
func seed(t *testing.T) uint64 {
	return seedpkg.New(t, seedFlag)
}

// TestModelFollowsTheTrees applies random transactions (updates that grow
// rows past their page, deletes, spills, truncates) and a resync through a
// mirror, and checks the model row by row against the trees at the head.
func TestModelFollowsTheTrees(t *testing.T) {
	sd := seed(t)
	rng := rand.New(rand.NewPCG(sd, 3))
	f := openFeed(t)
	a, b := relation(1, "a"), relation(2, "b")
	ref := map[string]map[int]int{"public.a": {}, "public.b": {}}
	for i := range 300 {
		ref["public.a"][i] = i
	}
	mod, sub := f.subscribeModel(t)
	f.copyTable(a, ref["public.a"])
	f.copyTable(b, ref["public.b"])
	rels := map[string]*wal.Relation{"public.a": a, "public.b": b}
	for round := range 5 {
		for range 120 {
			var ch []wal.Change
			n := 1 + rng.IntN(6)
			if rng.IntN(25) == 0 {
				n = 400 + rng.IntN(300)
			}
			for range n {
				name := []string{"public.a", "public.b"}[rng.IntN(2)]
				rows, rel := ref[name], rels[name]
				id := rng.IntN(600)
				switch k := rng.IntN(200); {
				case k == 0:
					ch = append(ch, wal.Change{Kind: wal.Truncate, Truncated: []*wal.Relation{rel}})
					clear(rows)
				case k < 60:
					if _, ok := rows[id]; ok {
						ch = append(ch, wal.Change{Kind: wal.Delete, Relation: rel, Old: vals(id, 0, ""), OldKind: wal.OldKey})
						delete(rows, id)
					}
				default:
					kind := wal.Insert
					if _, ok := rows[id]; ok {
						kind = wal.Update
					}
					bal := rng.IntN(1000)
					note := fmt.Sprintf("%0*d", rng.IntN(3000), id) // up to 3 KB: moves rows between pages
					ch = append(ch, wal.Change{Kind: kind, Relation: rel, New: vals(id, bal, note)})
					rows[id] = bal
				}
			}
			f.commit(ch)
		}
		if round == 2 {
			if err := f.m.MarkResync(t.Context(), "public.b", "test"); err != nil {
				t.Fatal(err)
			}
			f.copyTable(b, ref["public.b"])
		}
		f.waitDelivered(sub)
		n, err := mod.Compare(t.Context(), f.m)
		if err != nil {
			t.Fatalf("seed %d: round %d: %v", sd, round, err)
		}
		want := len(ref["public.a"]) + len(ref["public.b"])
		if n != want {
			t.Fatalf("seed %d: round %d: compared %d rows, reference has %d", sd, round, n, want)
		}
		// Point reads agree with the reference.
		for name, rows := range ref {
			tr, err := f.m.TreeAt(t.Context(), name, f.m.Head().EndLSN)
			if err != nil {
				t.Fatal(err)
			}
			for id := range 600 {
				key, err := tr.Codec.Encode(strconv.Itoa(id))
				if err != nil {
					t.Fatal(err)
				}
				row, found, err := mod.Get(name, key, mod.LSN(), nil)
				if err != nil {
					t.Fatalf("seed %d: get %s %d: %v", sd, name, id, err)
				}
				_, want := rows[id]
				if found != want {
					t.Fatalf("seed %d: get %s %d: found=%v, reference %v", sd, name, id, found, want)
				}
				if found {
					want, ok, err := tr.Get(t.Context(), strconv.Itoa(id))
					if err != nil || !ok || string(want) != string(row) {
						t.Fatalf("seed %d: get %s %d: model %x, tree %x (%v %v)", sd, name, id, row, want, ok, err)
					}
				}
			}
		}
		t.Logf("round %d: %d rows equal at %s", round, n, mod.LSN())
	}
}

// heapSmallPages makes pages of 64 rows so that tests span many pages.
var heapSmallPages = heap.Config{PageRows: 64, PageBytes: 16 << 10}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
