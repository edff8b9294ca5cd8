package replication

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/wal"
	"go.uber.org/goleak"
)

// copyInto is a CopySink that loads copied rows into a memSink, as the
// mirror loads its trees: a table's ranges are staged and loaded when it
// is reported copied, and forgotten when the copy discards them.
type copyInto struct {
	s      *memSink
	mu     sync.Mutex
	copied map[string]wal.LSN
	staged map[string][][]wal.Value
	// discarded counts DiscardCopy calls per table.
	discarded map[string]int
}

type copyIntoWriter struct {
	c    *copyInto
	rel  *wal.Relation
	rows [][]wal.Value
}

func (c *copyInto) CopyRange(_ context.Context, rel *wal.Relation, _ wal.BlockRange) (wal.RowWriter, error) {
	return &copyIntoWriter{c: c, rel: rel}, nil
}

func (c *copyInto) TableCopied(_ context.Context, rel *wal.Relation, at wal.LSN) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.copied == nil {
		c.copied = map[string]wal.LSN{}
	}
	c.copied[rel.QualifiedName()] = at
	c.s.reset(rel.QualifiedName())
	c.s.load(rel, c.staged[rel.QualifiedName()])
	delete(c.staged, rel.QualifiedName())
	return nil
}

func (c *copyInto) DiscardCopy(rel *wal.Relation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.staged, rel.QualifiedName())
	if c.discarded == nil {
		c.discarded = map[string]int{}
	}
	c.discarded[rel.QualifiedName()]++
}

func (w *copyIntoWriter) WriteRow(vals []wal.Value) error {
	w.rows = append(w.rows, cloneVals(vals))
	return nil
}

func (w *copyIntoWriter) Close() error {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	if w.c.staged == nil {
		w.c.staged = map[string][][]wal.Value{}
	}
	name := w.rel.QualifiedName()
	w.c.staged[name] = append(w.c.staged[name], w.rows...)
	return nil
}
func (w *copyIntoWriter) Abort() {}

// writeLoad runs random single-row inserts, updates and deletes on tables
// (id int PRIMARY KEY, v text) until stop is closed.
func writeLoad(t *testing.T, url string, tables []string, seed uint64, stop <-chan struct{}) (wait func() int) {
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int)
	go func() {
		defer conn.Close(context.Background())
		rng := rand.New(rand.NewPCG(seed, 2))
		n := 0
		for {
			select {
			case <-stop:
				done <- n
				return
			default:
			}
			tbl := tables[rng.IntN(len(tables))]
			id := rng.IntN(3000)
			var sql string
			switch rng.IntN(4) {
			case 0:
				sql = fmt.Sprintf("INSERT INTO %s VALUES (%d, 'ins %d') ON CONFLICT (id) DO UPDATE SET v = excluded.v", tbl, id, n)
			case 1:
				sql = fmt.Sprintf("DELETE FROM %s WHERE id = %d", tbl, id)
			default:
				sql = fmt.Sprintf("UPDATE %s SET v = 'upd %d' WHERE id = %d", tbl, n, id)
			}
			if _, err := conn.Exec(context.Background(), sql); err != nil {
				t.Errorf("load: %s: %v", sql, err)
				done <- n
				return
			}
			n++
		}
	}()
	return func() int { return <-done }
}

// TestCopyHandoverAndResync checks the two copy-to-stream handovers under
// concurrent writes: table a is copied under the slot's exported snapshot
// and streamed from its consistent point; table b's copy "crashed", so it
// is re-copied later by Resync under a temporary slot's snapshot, and the
// main stream (still from the first consistent point) drops b's changes
// before that snapshot through CopiedAt. Both must end equal to
// PostgreSQL: a change applied twice or missed would show (the sink also
// refuses a duplicate insert).
func TestCopyHandoverAndResync(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	seed := seed.New(t, seedFlag)
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	mustExec(t, conn,
		"CREATE TABLE a (id int PRIMARY KEY, v text)", "CREATE TABLE b (id int PRIMARY KEY, v text)",
		"INSERT INTO a SELECT g, 'seed' FROM generate_series(0, 2999, 2) g",
		"INSERT INTO b SELECT g, 'seed' FROM generate_series(0, 2999, 3) g")
	if _, err := EnsurePublication(t.Context(), conn, PublicationSpec{Name: "pub", Tables: []string{"public.a", "public.b"}}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	wait := writeLoad(t, url, []string{"a", "b"}, seed, stop)
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
			wait()
		}
	}()
	time.Sleep(200 * time.Millisecond)

	snap, err := CreateSlot(t.Context(), url, "main_ho")
	if err != nil {
		t.Fatal(err)
	}
	sink := newMemSink(snap.LSN)
	ci := &copyInto{s: sink}
	opts := CopyOptions{ConnString: url, Workers: 2, RangeBlocks: 2}
	if err := Copy(t.Context(), opts, snap.Snapshot(), []wal.TableName{{Schema: "public", Name: "a"}}, ci); err != nil {
		t.Fatal(err)
	}
	if err := snap.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // b changes between the two snapshots
	at, err := Resync(t.Context(), opts, []wal.TableName{{Schema: "public", Name: "b"}}, ci)
	if err != nil {
		t.Fatal(err)
	}
	if at <= snap.LSN || ci.copied["public.b"] != at || ci.copied["public.a"] != snap.LSN {
		t.Fatalf("copied at %v; slot at %s, resync at %s", ci.copied, snap.LSN, at)
	}
	filter := wal.NewCopiedAt()
	filter.Set("public.b", at)

	h := &harness{t: t, url: url, conn: conn, sink: sink, slot: snap.LSN, leaks: []goleak.Option{leaks}, slotName: "main_ho", strictLeaks: true}
	h.start(func(c *StreamConfig) { c.CopiedAt = filter })
	time.Sleep(300 * time.Millisecond)
	close(stop)
	n := wait()
	h.sync()
	h.stop()
	t.Logf("%d writes during copy and stream, %d transactions streamed", n, len(sink.committed()))
	h.checkTable("a", []string{"id", "v"})
	h.checkTable("b", []string{"id", "v"})
	// The temporary slot is gone with its connection.
	info, err := SlotStatus(t.Context(), conn.PgConn(), "main_ho")
	if err != nil || !info.Exists {
		t.Fatalf("main slot: %+v, %v", info, err)
	}
	var slots int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_replication_slots WHERE database = current_database()").Scan(&slots); err != nil || slots != 1 {
		t.Fatalf("%d slots after Resync (%v), want only main", slots, err)
	}
}

// TestPartitionedTables copies and streams a partitioned table both ways
// publish_via_partition_root can be set.
func TestPartitionedTables(t *testing.T) {
	t.Parallel()
	for _, viaRoot := range []bool{false, true} {
		t.Run(fmt.Sprintf("via_root=%v", viaRoot), func(t *testing.T) {
			leaks := goleak.IgnoreCurrent()
			url := pg.NewDB(t)
			conn := sqlConn(t, url)
			mustExec(t, conn,
				"CREATE TABLE m (id int PRIMARY KEY, v text) PARTITION BY RANGE (id)",
				"CREATE TABLE m_lo PARTITION OF m FOR VALUES FROM (0) TO (100)",
				"CREATE TABLE m_hi PARTITION OF m FOR VALUES FROM (100) TO (1000)",
				"INSERT INTO m SELECT g, 'v' || g FROM generate_series(0, 300) g")
			if _, err := EnsurePublication(t.Context(), conn, PublicationSpec{Name: "pub", Tables: []string{"public.m"}, ViaPartitionRoot: viaRoot}); err != nil {
				t.Fatal(err)
			}
			slot := fmt.Sprintf("main_part_%v", viaRoot)
			snap, err := CreateSlot(t.Context(), url, slot)
			if err != nil {
				t.Fatal(err)
			}
			sink := newMemSink(snap.LSN)
			ci := &copyInto{s: sink}
			if err := Copy(t.Context(), CopyOptions{ConnString: url, ViaPartitionRoot: viaRoot, RangeBlocks: 1}, snap.Snapshot(), []wal.TableName{{Schema: "public", Name: "m"}}, ci); err != nil {
				t.Fatal(err)
			}
			snap.Close(t.Context())
			wantCopied := map[string]wal.LSN{"public.m_lo": snap.LSN, "public.m_hi": snap.LSN}
			if viaRoot {
				wantCopied = map[string]wal.LSN{"public.m": snap.LSN}
			}
			if fmt.Sprint(ci.copied) != fmt.Sprint(wantCopied) {
				t.Fatalf("copied %v, want %v", ci.copied, wantCopied)
			}
			h := &harness{t: t, url: url, conn: conn, sink: sink, slot: snap.LSN, leaks: []goleak.Option{leaks}, slotName: slot}
			h.start()
			mustExec(t, conn, "UPDATE m SET id = 500 WHERE id = 5", // crosses partitions
				"UPDATE m SET v = 'x' WHERE id = 200", "DELETE FROM m WHERE id = 7", "INSERT INTO m VALUES (999, 'new')")
			h.sync()
			h.stop()
			if viaRoot {
				h.checkTable("m", []string{"id", "v"})
				// Still a delete and an insert, both named as the root.
				if got := changesOf(sink.committed())[:2]; fmt.Sprint(got) != "[delete m old1['5',<unchanged>] insert m new['500','v5']]" {
					t.Fatalf("cross-partition update via root arrives as %q", got)
				}
				return
			}
			h.checkTable("m_lo", []string{"id", "v"})
			h.checkTable("m_hi", []string{"id", "v"})
			if got := changesOf(sink.committed())[:2]; fmt.Sprint(got) != "[delete m_lo old1['5',<unchanged>] insert m_hi new['500','v5']]" {
				t.Fatalf("cross-partition update on leaves arrives as %q", got)
			}
		})
	}
}

// TestSchemaChangeResync runs the recipe the package documents for a
// schema change, as the mirror would: a Relation that differs from the
// stored one stops the stream, the table is re-copied by Resync at S, the
// stream resumes from the durable LSN with CopiedAt dropping the table's
// changes before S. Values that never travel through the stream (ADD
// COLUMN ... DEFAULT fills existing rows) must end up in the mirror.
func TestSchemaChangeResync(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []string{"public.sc", "public.other"},
		"CREATE TABLE sc (id int PRIMARY KEY, v text)", "CREATE TABLE other (id int PRIMARY KEY)")
	stored := (*wal.Relation)(nil)
	h.start()
	mustExec(t, h.conn, "INSERT INTO sc SELECT g, 'v' FROM generate_series(1, 100) g", "INSERT INTO other VALUES (1)")
	h.sync()
	for _, r := range h.sink.relations {
		if r.Name == "sc" {
			stored = r
		}
	}
	mustExec(t, h.conn, "ALTER TABLE sc ADD COLUMN d int DEFAULT 42", "INSERT INTO sc VALUES (101, 'w', 7)",
		"INSERT INTO other VALUES (2)")
	waitFor(t, 30*time.Second, "a changed Relation for sc", func() bool {
		h.sink.mu.Lock()
		defer h.sink.mu.Unlock()
		last := h.sink.relations[len(h.sink.relations)-1]
		return last.Name != "sc" || !last.Equal(stored)
	})
	h.stop()

	// The mirror replaces the table with a copy at S.
	h.sink.mu.Lock()
	h.sink.tables["public.sc"] = map[string][]wal.Value{}
	h.sink.mu.Unlock()
	mustExec(t, h.conn, "INSERT INTO sc VALUES (102, 'between', 1)", "INSERT INTO other VALUES (3)")
	at, err := Resync(t.Context(), CopyOptions{ConnString: h.url}, []wal.TableName{{Schema: "public", Name: "sc"}}, &copyInto{s: h.sink})
	if err != nil {
		t.Fatal(err)
	}
	filter := wal.NewCopiedAt()
	filter.Set("public.sc", at)
	h.start(func(c *StreamConfig) { c.CopiedAt = filter })
	mustExec(t, h.conn, "UPDATE sc SET d = d + 1 WHERE id IN (1, 101, 102)", "INSERT INTO sc VALUES (103, 'after', 9)",
		"INSERT INTO other VALUES (4)")
	h.sync()
	h.stop()
	h.checkTable("sc", []string{"id", "v", "d"})
	h.checkTable("other", []string{"id"})
}
