package replication

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sidecar-dev/sidecar/wal"
	"go.uber.org/goleak"
)

// harness runs a Streamer against a fresh database.
type harness struct {
	t      *testing.T
	url    string
	conn   *pgx.Conn
	sink   *memSink
	slot   wal.LSN
	cancel context.CancelFunc
	done   chan error
	leaks  []goleak.Option

	mu       sync.Mutex
	onErrs   []error
	st       *Streamer
	slotName string
	// strictLeaks makes stop check that no goroutine outlived Run. Only
	// for tests that are not parallel: goleak sees the whole process.
	// (TestMain checks the whole package after all tests.)
	strictLeaks bool
}

// slotSeq makes slot names unique: slots are per cluster, not per database.
var slotSeq atomic.Int64

// newHarness creates the schema, the publication "pub" for tables, and the
// slot h.slotName (its exported snapshot unused: the tables are empty or
// seeded into the sink by the test).
func newHarness(t *testing.T, tables []string, schema ...string) *harness {
	t.Helper()
	return newHarnessAt(t, pg.NewDB(t), tables, schema...)
}

func newHarnessAt(t *testing.T, url string, tables []string, schema ...string) *harness {
	t.Helper()
	h := &harness{t: t, url: url, leaks: []goleak.Option{goleak.IgnoreCurrent()}, slotName: fmt.Sprintf("main_%d", slotSeq.Add(1))}
	h.conn = sqlConn(t, h.url)
	mustExec(t, h.conn, schema...)
	if _, err := EnsurePublication(t.Context(), h.conn, PublicationSpec{Name: "pub", Tables: tables}); err != nil {
		t.Fatal(err)
	}
	snap, err := CreateSlot(t.Context(), h.url, h.slotName)
	if err != nil {
		t.Fatal(err)
	}
	if err := snap.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.slot = snap.LSN
	h.sink = newMemSink(snap.LSN)
	return h
}

func (h *harness) start(mods ...func(*StreamConfig)) {
	h.t.Helper()
	cfg := StreamConfig{ConnString: h.url, Slot: h.slotName, Publication: "pub", Sink: h.sink,
		SpoolDir: h.t.TempDir(), MinBackoff: 50 * time.Millisecond, MaxBackoff: 500 * time.Millisecond,
		OnError: func(err error, _ time.Duration) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.onErrs = append(h.onErrs, err)
		}}
	for _, m := range mods {
		m(&cfg)
	}
	st, err := NewStreamer(cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	h.st = st
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	go func() { h.done <- st.Run(ctx) }()
}

// stop ends the stream, checks it ended cleanly and left no goroutine.
func (h *harness) stop() {
	h.t.Helper()
	h.cancel()
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		h.t.Fatal("Run did not return within 10s of cancel")
	}
	if h.strictLeaks {
		goleak.VerifyNone(h.t, h.leaks...)
	}
	if err := h.sink.invariantErr(); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) errorsSeen() []error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]error(nil), h.onErrs...)
}

// sync waits until everything committed so far on the server is durable in
// the sink: a marker transaction's end is reached.
func (h *harness) sync() {
	h.t.Helper()
	var lsn string
	if err := h.conn.QueryRow(h.t.Context(), "SELECT pg_current_wal_insert_lsn()::text").Scan(&lsn); err != nil {
		h.t.Fatal(err)
	}
	want, err := wal.ParseLSN(lsn)
	if err != nil {
		h.t.Fatal(err)
	}
	// A ceiling for a condition that always comes: after a restart the
	// stream reconnects with backoff and resends; at load ~45 under -race
	// that took most of the 30 s this used to allow.
	waitFor(h.t, 2*time.Minute, "sink to reach "+lsn, func() bool {
		return h.sink.Durable() >= want || h.st.Stats().Flushed >= want
	})
}

// checkTable compares the sink's copy of a table with PostgreSQL.
func (h *harness) checkTable(table string, cols []string) {
	h.t.Helper()
	got, want := h.sink.rows("public."+table), rowsOf(h.t, h.url, table, cols)
	if !slices.Equal(got, want) {
		h.t.Fatalf("%s differs from PostgreSQL:\n got %q\nwant %q", table, got, want)
	}
}

// changesOf lists the committed changes as short strings.
func changesOf(txns []txnRecord) []string {
	var out []string
	for _, tx := range txns {
		for _, c := range tx.changes {
			out = append(out, describe(c))
		}
	}
	return out
}

func describe(c *wal.Change) string {
	switch c.Kind {
	case wal.Truncate:
		var names []string
		for _, r := range c.Truncated {
			names = append(names, r.Name)
		}
		return fmt.Sprintf("truncate %s cascade=%v restart=%v", strings.Join(names, ","), c.Cascade, c.RestartIdentity)
	case wal.Message:
		return fmt.Sprintf("message %s %s", c.Prefix, c.Content)
	}
	s := fmt.Sprintf("%s %s", c.Kind, c.Relation.Name)
	if c.OldKind != wal.NoOld {
		s += fmt.Sprintf(" old%d[%s]", c.OldKind, renderRow(c.Old))
	}
	if c.New != nil {
		s += " new[" + renderRow(c.New) + "]"
	}
	return s
}

func TestStreamRoundTrip(t *testing.T) {
	h := newHarness(t, []string{"public.a", "public.parent", "public.child"},
		"CREATE TABLE a (id int PRIMARY KEY, v text)",
		"CREATE TABLE parent (id int PRIMARY KEY)",
		"CREATE TABLE child (id int PRIMARY KEY, p int REFERENCES parent)",
		"CREATE TABLE unpublished (id int PRIMARY KEY)")
	h.strictLeaks = true
	h.start()
	mustExec(t, h.conn,
		"INSERT INTO a VALUES (1, 'one'), (2, ''), (3, NULL)",
		"UPDATE a SET v = 'uno' WHERE id = 1",
		"UPDATE a SET id = 10 WHERE id = 1", // primary key change
		"DELETE FROM a WHERE id = 2",
		"INSERT INTO unpublished VALUES (1)",
		"INSERT INTO parent VALUES (1)", "INSERT INTO child VALUES (1, 1)",
		"BEGIN", "SELECT pg_logical_emit_message(true, 'sidecar', 'marker')", "INSERT INTO a VALUES (4, 'four')", "COMMIT",
		"TRUNCATE parent CASCADE",
		"SELECT pg_logical_emit_message(false, 'nontx', 'ignored')", // outside any transaction
		"INSERT INTO a VALUES (5, 'five')", "TRUNCATE a RESTART IDENTITY",
	)
	h.sync()
	h.stop()
	got := changesOf(h.sink.committed())
	want := []string{
		"insert a new['1','one']", "insert a new['2','']", "insert a new['3',NULL]",
		"update a new['1','uno']",
		"update a old1['1',<unchanged>] new['10','uno']",
		"delete a old1['2',<unchanged>]",
		"insert parent new['1']", "insert child new['1','1']",
		"message sidecar marker", "insert a new['4','four']",
		"truncate parent,child cascade=true restart=false",
		"insert a new['5','five']", "truncate a cascade=false restart=true",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("changes:\n got %q\nwant %q", got, want)
	}
	h.checkTable("a", []string{"id", "v"})
	// Every transaction's positions are consistent and increasing.
	var prev wal.LSN
	for _, tx := range h.sink.committed() {
		if tx.info.CommitLSN >= tx.info.EndLSN || tx.info.EndLSN <= prev || tx.info.CommitTime.IsZero() || tx.info.Xid == 0 {
			t.Fatalf("bad txn info %+v after end %s", tx.info, prev)
		}
		prev = tx.info.EndLSN
	}
	if tx := h.sink.committed()[0]; tx.info.CommitLSN < h.slot {
		t.Fatalf("first transaction commits at %s, before the slot's consistent point %s", tx.info.CommitLSN, h.slot)
	}
	if errs := h.errorsSeen(); len(errs) > 0 {
		t.Fatalf("connection errors: %v", errs)
	}
	// The stream's Relation describes the table exactly as the copy does.
	var streamRel *wal.Relation
	for _, r := range h.sink.relations {
		if r.Name == "a" {
			streamRel = r
		}
	}
	cs := newMemCopySink()
	snap, err := CreateSlot(t.Context(), h.url, "other")
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close(t.Context())
	if err := Copy(t.Context(), CopyOptions{ConnString: h.url}, snap.Snapshot(), []wal.TableName{{Schema: "public", Name: "a"}}, cs); err != nil {
		t.Fatal(err)
	}
	if streamRel == nil || streamRel.DescribedAt == 0 {
		t.Fatalf("the stream's Relation carries no commit LSN: %+v", streamRel)
	}
	streamRel = withoutFacts(streamRel)
	if copyRel := withoutFacts(cs.rels["public.a"]); !copyRel.Equal(streamRel) || !reflect.DeepEqual(copyRel, streamRel) {
		t.Fatalf("copy describes %+v, stream %+v", copyRel, streamRel)
	}
}

func TestReplicaIdentities(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []string{"public.d", "public.ui", "public.f"},
		"CREATE TABLE d (id int PRIMARY KEY, v text)",
		"CREATE TABLE ui (u text NOT NULL, id int PRIMARY KEY, v text)",
		"CREATE UNIQUE INDEX ui_u ON ui (u)",
		"ALTER TABLE ui REPLICA IDENTITY USING INDEX ui_u",
		"CREATE TABLE f (id int PRIMARY KEY, v text)",
		"ALTER TABLE f REPLICA IDENTITY FULL")
	h.start()
	for _, tbl := range []string{"d", "f"} {
		mustExec(t, h.conn,
			"INSERT INTO "+tbl+" VALUES (1, 'a'), (2, 'b')",
			"UPDATE "+tbl+" SET v = 'a2' WHERE id = 1",
			"UPDATE "+tbl+" SET id = 3 WHERE id = 2",
			"DELETE FROM "+tbl+" WHERE id = 1")
	}
	mustExec(t, h.conn,
		"INSERT INTO ui VALUES ('x', 1, 'a')",
		"UPDATE ui SET v = 'a2'",
		"UPDATE ui SET u = 'y'",
		"DELETE FROM ui")
	h.sync()
	h.stop()
	got := changesOf(h.sink.committed())
	want := []string{
		"insert d new['1','a']", "insert d new['2','b']",
		"update d new['1','a2']",
		"update d old1['2',<unchanged>] new['3','b']",
		"delete d old1['1',<unchanged>]",
		"insert f new['1','a']", "insert f new['2','b']",
		"update f old2['1','a'] new['1','a2']",
		"update f old2['2','b'] new['3','b']",
		"delete f old2['1','a2']",
		"insert ui new['x','1','a']",
		"update ui new['x','1','a2']",
		"update ui old1['x',<unchanged>,<unchanged>] new['y','1','a2']",
		"delete ui old1['y',<unchanged>,<unchanged>]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("changes:\n got %q\nwant %q", got, want)
	}
	for _, r := range h.sink.relations {
		var keys []string
		for _, i := range r.KeyColumns() {
			keys = append(keys, r.Columns[i].Name)
		}
		wantKeys := map[string]string{"d": "id", "ui": "u", "f": "id,v"}[r.Name]
		if strings.Join(keys, ",") != wantKeys {
			t.Errorf("%s (identity %s): key columns %v, want %s", r.Name, r.Identity, keys, wantKeys)
		}
	}
	for _, tbl := range []string{"d", "f"} {
		h.checkTable(tbl, []string{"id", "v"})
	}
}

func TestUnchangedToast(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []string{"public.big"},
		"CREATE TABLE big (id int PRIMARY KEY, n int, doc text)",
		"ALTER TABLE big ALTER COLUMN doc SET STORAGE EXTERNAL") // out of line, uncompressed
	h.start()
	mustExec(t, h.conn,
		"INSERT INTO big SELECT 1, 0, string_agg(md5(g::text), '') FROM generate_series(1, 400) g", // 12.8 kB
		"UPDATE big SET n = n + 1")
	h.sync()
	h.stop()
	txns := h.sink.committed()
	if len(txns) != 2 {
		t.Fatalf("%d transactions, want 2", len(txns))
	}
	up := txns[1].changes[0]
	if up.Kind != wal.Update || up.New[2].Kind != wal.Unchanged || string(up.New[1].Bytes) != "1" {
		t.Fatalf("update carries %s, want doc unchanged ('u') and n = 1", describe(up))
	}
	h.checkTable("big", []string{"id", "n", "doc"})
}

// TestStreamedTransactionSubxactRollback: a transaction big enough to be
// streamed in chunks (logical_decoding_work_mem = 64kB) with a rolled-back
// subtransaction delivers exactly the surviving rows, once, at its commit.
func TestStreamedTransactionSubxactRollback(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []string{"public.s"}, "CREATE TABLE s (id int PRIMARY KEY, v text)")
	h.start()
	mustExec(t, h.conn,
		"BEGIN",
		"INSERT INTO s SELECT g, repeat('a', 50) FROM generate_series(1, 3000) g",
		"SAVEPOINT sp",
		"INSERT INTO s SELECT g, 'doomed' FROM generate_series(100001, 102000) g",
		"UPDATE s SET v = 'doomed too' WHERE id <= 10",
		"ROLLBACK TO SAVEPOINT sp",
		"SAVEPOINT sp2",
		"INSERT INTO s SELECT g, 'kept' FROM generate_series(5001, 6000) g",
		"RELEASE SAVEPOINT sp2",
		"COMMIT")
	h.sync()
	h.stop()
	txns := h.sink.committed()
	if len(txns) != 1 || !txns[0].info.Streamed {
		t.Fatalf("%d transactions (first streamed: %v), want 1 streamed", len(txns), len(txns) > 0 && txns[0].info.Streamed)
	}
	if n := len(txns[0].changes); n != 4000 {
		t.Fatalf("streamed transaction delivered %d changes, want 4000", n)
	}
	h.checkTable("s", []string{"id", "v"})
}

// TestAbortedStreamedTransaction: a streamed transaction that rolls back
// delivers nothing and leaves nothing spooled.
func TestAbortedStreamedTransaction(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []string{"public.s"}, "CREATE TABLE s (id int PRIMARY KEY, v text)")
	spool, err := NewDiskSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer spool.Close()
	h.start(func(c *StreamConfig) { c.Spool = spool })
	mustExec(t, h.conn,
		"BEGIN", "INSERT INTO s SELECT g, repeat('z', 80) FROM generate_series(1, 5000) g", "ROLLBACK",
		"INSERT INTO s VALUES (0, 'after')")
	h.sync()
	h.stop()
	if got := changesOf(h.sink.committed()); !reflect.DeepEqual(got, []string{"insert s new['0','after']"}) {
		t.Fatalf("changes after an aborted streamed transaction: %d (%.80q), want only the later insert", len(got), got)
	}
	if n := spool.Open(); n != 0 {
		t.Fatalf("%d transactions left in the spool", n)
	}
}

// TestKeepaliveWhileSinkBlocks: the sink stalls longer than
// wal_sender_timeout (4s) inside a transaction while the reader's queue is
// full (by count, then by bytes); the reader keeps sending status updates,
// so the walsender does not drop the connection.
func TestKeepaliveWhileSinkBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("sleeps 5s")
	}
	for name, mod := range map[string]func(*StreamConfig){
		"queue full":   func(c *StreamConfig) { c.QueueSize = 2 },
		"bytes budget": func(c *StreamConfig) { c.QueueBytes = 1 },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, []string{"public.k"}, "CREATE TABLE k (id int PRIMARY KEY)")
			h.sink.delayOnce = 5 * time.Second
			h.start(mod)
			mustExec(t, h.conn, "INSERT INTO k SELECT generate_series(1, 100)", "INSERT INTO k VALUES (101)")
			h.sync()
			st := h.st.Stats()
			h.stop()
			if errs := h.errorsSeen(); len(errs) > 0 || st.Reconnects > 0 {
				t.Fatalf("connection dropped while the sink was blocked (%d reconnects): %v", st.Reconnects, errs)
			}
			if st.StatusSent < 4 {
				t.Fatalf("only %d status updates sent during a 5s stall", st.StatusSent)
			}
			h.checkTable("k", []string{"id"})
		})
	}
}

// TestIdleSlotAdvances: with traffic only in unpublished tables, the slot's
// confirmed_flush_lsn still moves (keepalive WAL end acknowledged when
// caught up), so it does not pin WAL.
func TestIdleSlotAdvances(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []string{"public.p"}, "CREATE TABLE p (id int PRIMARY KEY)", "CREATE TABLE other (id int)")
	h.start()
	mustExec(t, h.conn, "INSERT INTO other SELECT generate_series(1, 1000)")
	var target wal.LSN
	var s string
	if err := h.conn.QueryRow(t.Context(), "SELECT pg_current_wal_lsn()::text").Scan(&s); err != nil {
		t.Fatal(err)
	}
	target, _ = wal.ParseLSN(s)
	waitFor(t, 30*time.Second, "confirmed_flush_lsn to pass "+s, func() bool {
		info, err := SlotStatus(t.Context(), h.conn.PgConn(), h.slotName)
		return err == nil && info.ConfirmedFlush >= target
	})
	if txns := h.sink.committed(); len(txns) != 0 {
		t.Fatalf("%d transactions delivered (%+v), want none", len(txns), txns[0].info)
	}
	h.stop()
}

func TestSlotLostAndSystemChanged(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []string{"public.p"}, "CREATE TABLE p (id int PRIMARY KEY)")
	st, err := NewStreamer(StreamConfig{ConnString: h.url, Slot: h.slotName, Publication: "pub", Sink: h.sink,
		System: wal.SystemIdentity{SystemID: "1", Timeline: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Run(t.Context()); !errors.Is(err, wal.ErrSystemChanged) {
		t.Fatalf("Run against another system id: %v, want ErrSystemChanged", err)
	}
	st, err = NewStreamer(StreamConfig{ConnString: h.url, Slot: h.slotName, Publication: "pub", Sink: newMemSink(0)})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Run(t.Context()); err == nil || !strings.Contains(err.Error(), "0/0") {
		t.Fatalf("Run with a sink at 0/0: %v, want a refusal", err)
	}
	if err := DropSlot(t.Context(), h.conn.PgConn(), h.slotName); err != nil {
		t.Fatal(err)
	}
	st, err = NewStreamer(StreamConfig{ConnString: h.url, Slot: h.slotName, Publication: "pub", Sink: h.sink})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Run(t.Context())
	var lost *SlotLostError
	if !errors.Is(err, ErrSlotLost) || !errors.As(err, &lost) || lost.Reason != "missing" ||
		!strings.Contains(err.Error(), "--resync") {
		t.Fatalf("Run with a dropped slot: %v, want a SlotLostError naming the way back", err)
	}
}

// TestRelationMatchesCopy: for built-in, array, enum and domain types and
// typmods, the stream's Relation equals the copy's description field for
// field, and values of every type arrive as the copy reads them.
func TestRelationMatchesCopy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []string{"public.ty"},
		"CREATE TYPE mood AS ENUM ('sad', 'ok')",
		"CREATE DOMAIN posint AS int CHECK (VALUE > 0)",
		`CREATE TABLE ty (id int PRIMARY KEY, a int2, b float4, c numeric(10,2), d varchar(5), e char(3), f bool,
			g uuid, h jsonb, i inet, j macaddr, k money, l bit(4), m varbit, n tsvector, o int4range, p point,
			q mood, r posint, s mood[], u timetz, v time(3), w xml, x "char", y name, z oid, aa int8[])`)
	h.start()
	mustExec(t, h.conn, `INSERT INTO ty VALUES (1, 2, 1.5, 3.14, 'abc', 'x', true,
		'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"b": [1, 2]}', '10.0.0.1/8', '08:00:2b:01:02:03', 12.5, B'1010', B'11',
		'a fat cat', '[1,5)', '(1,2)', 'ok', 7, '{sad,ok}', '04:05:06+02', '04:05:06.789', '<a>x</a>', 'q', 'nm', 42, '{1,NULL}')`)
	h.sync()
	h.stop()
	var streamRel *wal.Relation
	for _, r := range h.sink.relations {
		streamRel = r
	}
	cs := newMemCopySink()
	snap, err := CreateSlot(t.Context(), h.url, h.slotName+"_c")
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close(t.Context())
	if err := Copy(t.Context(), CopyOptions{ConnString: h.url}, snap.Snapshot(), []wal.TableName{{Schema: "public", Name: "ty"}}, cs); err != nil {
		t.Fatal(err)
	}
	copyRel := withoutFacts(cs.rels["public.ty"])
	streamRel = withoutFacts(streamRel)
	if !reflect.DeepEqual(copyRel, streamRel) {
		for i := range copyRel.Columns {
			if i < len(streamRel.Columns) && copyRel.Columns[i] != streamRel.Columns[i] {
				t.Errorf("column %d: copy %+v, stream %+v", i, copyRel.Columns[i], streamRel.Columns[i])
			}
		}
		t.Fatalf("copy and stream describe the table differently")
	}
	if got, want := cs.sorted("public.ty"), h.sink.rows("public.ty"); !reflect.DeepEqual(got, want) {
		t.Fatalf("copy reads %q, stream sent %q", got, want)
	}
	if c := copyRel.Columns[17]; c.TypeName != "public.mood" || copyRel.Columns[19].TypeName != "public._mood" ||
		copyRel.Columns[4].TypeMod != 9 || copyRel.Columns[18].TypeName != "int4" {
		t.Fatalf("type names: %+v", copyRel.Columns)
	}
}

// TestSchemaChangeRelation: DDL is not replicated, but the next change
// after it comes with a new Relation that differs from the old one: the
// mirror's cue to resync the table.
func TestSchemaChangeRelation(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []string{"public.sc"}, "CREATE TABLE sc (id int PRIMARY KEY, v text)")
	h.start()
	mustExec(t, h.conn, "INSERT INTO sc VALUES (1, 'a')",
		"ALTER TABLE sc ADD COLUMN d int DEFAULT 42", "INSERT INTO sc VALUES (2, 'b')",
		"ALTER TABLE sc DROP COLUMN v", "ALTER TABLE sc ALTER COLUMN d TYPE text", "INSERT INTO sc VALUES (3)")
	h.sync()
	h.stop()
	var shapes []string
	for i, r := range h.sink.relations {
		var cols []string
		for _, c := range r.Columns {
			cols = append(cols, c.Name+":"+c.TypeName)
		}
		shapes = append(shapes, strings.Join(cols, ","))
		if i > 0 && r.Equal(h.sink.relations[i-1]) {
			t.Errorf("relation %d equals its predecessor after a schema change", i)
		}
	}
	want := []string{"id:int4,v:text", "id:int4,v:text,d:int4", "id:int4,d:text"}
	if !reflect.DeepEqual(shapes, want) {
		t.Fatalf("relations %q, want %q", shapes, want)
	}
}

// TestAckOnlyDurable: what the sink received but has not made durable is
// never acknowledged (the slot's confirmed_flush_lsn stays at the durable
// LSN), acknowledgement follows durability promptly, and after a "crash"
// that loses the non-durable part, a new stream from the durable LSN
// delivers exactly the lost transactions again.
func TestAckOnlyDurable(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []string{"public.d"}, "CREATE TABLE d (id int PRIMARY KEY)")
	h.sink.holdDurable.Store(true)
	h.start()
	for i := 1; i <= 5; i++ {
		mustExec(t, h.conn, fmt.Sprintf("INSERT INTO d VALUES (%d)", i))
	}
	waitFor(t, 30*time.Second, "5 transactions delivered", func() bool { return len(h.sink.committed()) == 5 })
	sent := h.st.Stats().StatusSent
	waitFor(t, 30*time.Second, "more status updates", func() bool { return h.st.Stats().StatusSent >= sent+3 })
	confirmed := func() wal.LSN {
		info, err := SlotStatus(t.Context(), h.conn.PgConn(), h.slotName)
		if err != nil {
			t.Fatal(err)
		}
		return info.ConfirmedFlush
	}
	if c := confirmed(); c > h.slot {
		t.Fatalf("confirmed_flush_lsn %s moved past the durable %s while nothing was durable", c, h.slot)
	}
	txns := h.sink.committed()
	durable := txns[1].info.EndLSN
	h.sink.durable.Store(uint64(durable))
	waitFor(t, 10*time.Second, "acknowledgement of the durable LSN", func() bool { return confirmed() == durable })
	h.stop()

	// Crash: transactions 3-5 were never durable.
	h.sink = newMemSink(durable)
	h.start()
	mustExec(t, h.conn, "INSERT INTO d VALUES (6)")
	h.sync()
	h.stop()
	var got, want []uint32
	for _, tx := range h.sink.committed() {
		got = append(got, tx.info.Xid)
	}
	for _, tx := range txns[2:] {
		want = append(want, tx.info.Xid)
	}
	if len(got) != 4 || !reflect.DeepEqual(got[:3], want) {
		t.Fatalf("after resuming from %s: xids %v, want %v then the new one", durable, got, want)
	}
}
