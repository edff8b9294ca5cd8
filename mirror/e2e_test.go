package mirror

import (
	"context"
	"maps"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sidecar-dev/sidecar/follow"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
	"go.uber.org/goleak"
)

// pg is the package's cluster. A small logical_decoding_work_mem makes
// modest transactions arrive streamed (protocol 2), with subtransaction
// aborts.
var pg *pgtest.Cluster

func TestMain(m *testing.M) {
	os.Exit(pgtest.RunMain(m, pgtest.Options{Settings: map[string]string{
		"logical_decoding_work_mem": "64kB",
		"wal_sender_timeout":        "10s",
	}}, func(c *pgtest.Cluster) { pg = c }))
}

// e2e follows a fresh database: publication "pub", slot "main", initial
// copy into a Mirror on a disk store, then a Streamer into it.
type e2e struct {
	t      *testing.T
	url    string
	conn   *pgx.Conn
	dir    string
	opts   Options
	db     *store.DB
	m      *Mirror
	filter *wal.CopiedAt
	tables []wal.TableName
	spool  string // the follower's data directory (spool, settled LSN)
	copy   replication.CopyOptions

	mu  sync.Mutex
	run *follow.Running
	st  *replication.Streamer
}

func newE2E(t *testing.T, opts Options, tables []string, schema ...string) *e2e {
	t.Helper()
	e := newE2EOpen(t, opts, tables, schema...)
	e.prepare()
	return e
}

// newE2EOpen is newE2E with the mirror open and nothing copied yet.
func newE2EOpen(t *testing.T, opts Options, tables []string, schema ...string) *e2e {
	t.Helper()
	leaks := goleak.IgnoreCurrent()
	e := &e2e{t: t, url: pg.NewDB(t), dir: t.TempDir(), opts: opts, filter: wal.NewCopiedAt(), spool: t.TempDir(),
		copy: replication.CopyOptions{Workers: 2, RangeBlocks: 1}}
	conn, err := pgx.Connect(t.Context(), e.url)
	if err != nil {
		t.Fatal(err)
	}
	e.conn = conn
	t.Cleanup(func() {
		e.stop()
		if e.m != nil {
			if st := e.m.Stats(); st.GroupRows > 0 && st.TreeChecks == 0 {
				t.Errorf("strict mode: %d rows flushed in groups, no tree checked", st.GroupRows)
			}
			e.m.Close(context.Background())
		}
		if e.db != nil {
			e.db.Close()
		}
		conn.Close(context.Background())
		goleak.VerifyNone(t, leaks, goleak.IgnoreTopFunction("github.com/sidecar-dev/sidecar/internal/pgtest.ServerGoroutine"))
	})
	e.exec(schema...)
	for _, s := range tables {
		tn, err := wal.ParseTableName(s)
		if err != nil {
			t.Fatal(err)
		}
		e.tables = append(e.tables, tn)
	}
	e.open()
	return e
}

// prepare makes the publication and the slot and copies the tables (the
// stream starts with start).
func (e *e2e) prepare() {
	e.t.Helper()
	if err := follow.New(e.followConfig()).Prepare(e.t.Context()); err != nil {
		e.t.Fatal(err)
	}
}

// followConfig follows e's tables into its mirror; resyncs are the
// tests' to run.
func (e *e2e) followConfig() follow.Config {
	return follow.Config{ConnString: e.url, Slot: "main", Publication: "pub", Tables: e.tables, Target: e.m,
		CopiedAt: e.filter, DataDir: e.spool, Copy: e.copy, HoldResyncs: true,
		Stream: func(c *replication.StreamConfig) {
			c.MinBackoff, c.MaxBackoff = 50*time.Millisecond, 500*time.Millisecond
		}}
}

func (e *e2e) exec(sqls ...string) {
	e.t.Helper()
	for _, s := range sqls {
		if _, err := e.conn.Exec(e.t.Context(), s); err != nil {
			e.t.Fatalf("%s: %v", s, err)
		}
	}
}

func (e *e2e) open() {
	e.t.Helper()
	db, err := store.Open(store.Options{Dir: e.dir, CacheBytes: 16 << 20})
	if err != nil {
		e.t.Fatal(err)
	}
	o := e.opts
	o.DB, o.CopiedAt, o.TempDir = db, e.filter, e.t.TempDir()
	o.StrictChecks = true // every tree a group flush makes is checked
	m, err := Open(e.t.Context(), o)
	if err != nil {
		db.Close()
		e.t.Fatal(err)
	}
	e.db, e.m = db, m
}

func (e *e2e) start() {
	e.t.Helper()
	run, err := follow.Start(e.t.Context(), e.followConfig())
	if err != nil {
		e.t.Fatal(err)
	}
	e.mu.Lock()
	e.run, e.st = run, run.Streamer()
	e.mu.Unlock()
}

func (e *e2e) stop() {
	e.mu.Lock()
	run := e.run
	e.run = nil
	e.mu.Unlock()
	if run == nil {
		return
	}
	if err := run.Stop(); err != nil {
		e.t.Errorf("stream: %v", err)
	}
}

// reopen stops the stream and closes the mirror: cleanly, or (crash) by
// closing Badger under a mirror that neither flushed its group nor synced
// its last commits. Then it opens both again.
func (e *e2e) reopen(crash bool) {
	e.t.Helper()
	e.stop()
	if crash {
		e.m.abandon()
	} else if err := e.m.Close(e.t.Context()); err != nil {
		e.t.Fatal(err)
	}
	if err := e.db.Close(); err != nil {
		e.t.Fatal(err)
	}
	e.m, e.db = nil, nil
	e.open()
	e.start()
}

// sync waits until every transaction committed on the server so far is
// durable in the mirror. It needs a running stream: WAL after the last
// followed commit (autovacuum, a running-xacts record, other databases)
// is passed only by the stream's idle acknowledgement, never by Durable.
func (e *e2e) sync() wal.LSN {
	e.t.Helper()
	e.mu.Lock()
	running := e.st != nil && e.run != nil
	e.mu.Unlock()
	if !running {
		e.t.Fatal("sync without a running stream would wait for WAL only a stream can pass")
	}
	var s string
	if err := e.conn.QueryRow(e.t.Context(), "SELECT pg_current_wal_insert_lsn()::text").Scan(&s); err != nil {
		e.t.Fatal(err)
	}
	want, err := wal.ParseLSN(s)
	if err != nil {
		e.t.Fatal(err)
	}
	// The wait fails when the mirror stops moving, not when it is slow:
	// under -race at load ~55 TestEndToEnd's last sync (a crash reopen,
	// then 60 transactions with streamed ones) was still applying, 13 MB
	// of WAL short, when a fixed 60 s ceiling ended it. A minute without
	// the durable (or acknowledged) position advancing fails it, as does syncCeiling.
	start := time.Now()
	last, lastMove := wal.LSN(0), start
	for {
		e.mu.Lock()
		st := e.st
		e.mu.Unlock()
		d, f := e.m.Durable(), wal.LSN(0)
		if st != nil {
			f = st.Stats().Flushed
		}
		if d >= want || f >= want {
			return want
		}
		if err := e.m.Err(); err != nil {
			e.t.Fatalf("mirror: %v", err)
		}
		now := time.Now()
		if p := max(d, f); p != last {
			last, lastMove = p, now
		}
		if now.Sub(lastMove) > syncStall || now.Sub(start) > syncCeiling {
			e.t.Fatalf("mirror durable at %s (last moved %s ago), waited %s for %s", d, now.Sub(lastMove).Round(time.Second), now.Sub(start).Round(time.Second), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// syncStall is how long sync waits for the durable position to move;
// syncCeiling how long it waits in all.
const (
	syncStall   = time.Minute
	syncCeiling = 10 * time.Minute
)

// pgRows reads a table from PostgreSQL as the mirror stores it: key →
// vrow1 of the columns' text output under the pinned session settings.
func pgRows(t *testing.T, url string, tr *Tree, table string) map[string]string {
	t.Helper()
	conn, err := replication.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rel := tr.Relation
	exprs := make([]string, len(rel.Columns))
	for i, c := range rel.Columns {
		exprs[i] = wal.QuoteIdent(c.Name) + "::text"
	}
	tn, _ := wal.ParseTableName(table)
	rows, err := conn.Query(t.Context(), "SELECT "+strings.Join(exprs, ", ")+" FROM ONLY "+tn.Quoted(), pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	keyCols := rel.KeyColumns()
	for rows.Next() {
		raw := rows.RawValues()
		cols := make([][]byte, len(raw))
		for i, r := range raw {
			if r != nil {
				cols[i] = append([]byte{}, r...)
			}
		}
		val := rowenc.Encode(cols)
		// REPLICA IDENTITY FULL: a multiset, the k-th identical row is
		// occurrence k-1.
		var key []byte
		for occ := uint32(0); tr.Codec == nil; occ++ {
			if key = rowenc.AppendOccurrenceKey(nil, val, occ); out[string(key)] == "" {
				break
			}
		}
		if tr.Codec != nil {
			texts := make([][]byte, len(keyCols))
			for i, k := range keyCols {
				texts[i] = cols[k]
			}
			if key, err = tr.Codec.Append(nil, texts); err != nil {
				t.Fatal(err)
			}
		}
		out[string(key)] = string(val)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// treeMap scans a tree into key → value.
func treeMap(t *testing.T, tr *Tree) map[string]string {
	t.Helper()
	c, err := tr.Scan(t.Context(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for c.Next() {
		out[string(c.Key())] = string(c.Value())
	}
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// check waits for the stream to apply everything committed so far, then
// compares every table with PostgreSQL.
func (e *e2e) check() {
	e.t.Helper()
	e.sync()
	e.compare()
}

// compare compares every table at the mirror's head with PostgreSQL (the
// caller knows no followed commit is missing: after sync, or right after
// the copy).
func (e *e2e) compare() {
	e.t.Helper()
	for _, tn := range e.tables {
		tr, err := e.m.TreeAt(e.t.Context(), tn.String(), ^wal.LSN(0))
		if err != nil {
			e.t.Fatal(err)
		}
		got, want := treeMap(e.t, tr), pgRows(e.t, e.url, tr, tn.String())
		if !maps.Equal(got, want) {
			e.t.Fatalf("%s: mirror has %d rows, PostgreSQL %d; first differences:\n%s", tn, len(got), len(want), diffRows(got, want))
		}
		e.t.Logf("%s: %d rows equal to PostgreSQL", tn, len(got))
	}
	if rs := e.m.NeedsResync(); len(rs) != 0 {
		e.t.Fatalf("tables need a resync: %v", rs)
	}
}
