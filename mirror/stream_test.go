package mirror

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sidecar-dev/sidecar/wal"
)

// Streamed transactions applied ahead (stream.go). The package's cluster
// has logical_decoding_work_mem 64kB: a few thousand rows are streamed.

// openTxn begins a transaction on a connection of its own and returns it
// with its top-level xid (assigned now).
func (e *e2e) openTxn() (pgx.Tx, uint32) {
	e.t.Helper()
	conn, err := pgx.Connect(e.t.Context(), e.url)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { conn.Close(context.Background()) })
	tx, err := conn.Begin(e.t.Context())
	if err != nil {
		e.t.Fatal(err)
	}
	var xid int64
	if err := tx.QueryRow(e.t.Context(), "SELECT txid_current()").Scan(&xid); err != nil {
		e.t.Fatal(err)
	}
	return tx, uint32(xid)
}

func txExec(t *testing.T, tx pgx.Tx, sqls ...string) {
	t.Helper()
	for _, s := range sqls {
		if _, err := tx.Exec(t.Context(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// waitPending waits until xid's pending state took at least n changes
// (usable, unless anyState).
func (e *e2e) waitPending(xid uint32, n int64, anyState bool) {
	e.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		got, usable := e.m.StreamPending(xid)
		if got >= n && (usable || anyState) {
			return
		}
		if err := e.m.Err(); err != nil {
			e.t.Fatalf("mirror: %v", err)
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("xid %d: pending state took %d changes (usable %v), waited for %d", xid, got, usable, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitRows waits until the mirror's head has n rows of table.
func (e *e2e) waitRows(table string, n int) {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		tr, err := e.m.TreeAt(e.t.Context(), table, ^wal.LSN(0))
		if err != nil {
			e.t.Fatal(err)
		}
		if got := len(treeMap(e.t, tr)); got == n {
			return
		} else if time.Now().After(deadline) {
			e.t.Fatalf("%s has %d rows at the head, waited for %d", table, got, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStreamedAppliedBeforeCommit: the changes of a streamed transaction
// are in its pending state while PostgreSQL has not even committed it, no
// reader sees them, and the commit takes the pending state without a
// replay of the spool; the table then equals PostgreSQL's.
func TestStreamedAppliedBeforeCommit(t *testing.T) {
	e := newE2E(t, Options{SpillRows: 2000}, []string{"public.s"},
		"CREATE TABLE s (id int PRIMARY KEY, v text)",
		"INSERT INTO s SELECT g, 'old' FROM generate_series(1, 1000) g")
	e.start()
	e.sync()
	tx, xid := e.openTxn()
	txExec(t, tx,
		"INSERT INTO s SELECT g, repeat('n', 40) FROM generate_series(1001, 9000) g",
		"UPDATE s SET v = 'changed' WHERE id <= 500")
	// 8,500 changes; all but the last chunk's are streamed before COMMIT.
	e.waitPending(xid, 6000, false)
	e.compare() // nothing of it visible: the head equals PostgreSQL outside the transaction
	before := e.m.StreamsAdopted()
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.check()
	if got := e.m.StreamsAdopted() - before; got != 1 {
		t.Fatalf("%d streamed transactions committed from their pending state, want 1", got)
	}
}

// TestStreamedSubxactAbortsInterleaved: a streamed transaction with
// subtransactions rolled back after some of their changes were applied
// ahead, while other transactions commit in between: to a table the
// streamed one changes too (keyed, not spilled: the pending state is
// kept; its TOAST-unchanged update reads the row as the commit in between
// left it), to one it does not change, and (second transaction) to a
// table whose pending edits were spilled (the pending state gives up:
// replayed at the commit). Every table equals PostgreSQL's.
func TestStreamedSubxactAbortsInterleaved(t *testing.T) {
	e := newE2E(t, Options{SpillRows: 2000, GroupMaxRows: 50, GroupMaxAge: 20 * time.Millisecond},
		[]string{"public.s", "public.u", "public.o", "public.f"},
		"CREATE TABLE s (id int PRIMARY KEY, v text)",
		"CREATE TABLE u (id int PRIMARY KEY, name text, big text)",
		"CREATE TABLE o (id int PRIMARY KEY, v text)",
		"CREATE TABLE f (a int, b text)",
		"ALTER TABLE f REPLICA IDENTITY FULL",
		// Out-of-line TOAST: incompressible ~10 kB values.
		`INSERT INTO u SELECT g, 'u' || g, big FROM generate_series(1, 20) g,
			LATERAL (SELECT string_agg(md5(random()::text || g || i), '') AS big FROM generate_series(1, 320) i) x`,
		"INSERT INTO o SELECT g, 'o' FROM generate_series(1, 10) g",
		"INSERT INTO f SELECT g % 5, 'f' FROM generate_series(1, 20) g")
	e.start()
	e.sync()

	// 1: kept.
	tx, xid := e.openTxn()
	txExec(t, tx, "INSERT INTO s SELECT g, repeat('a', 40) FROM generate_series(1, 3000) g")
	e.waitPending(xid, 2000, false)
	txExec(t, tx,
		"SAVEPOINT a",
		"INSERT INTO s SELECT g, 'doomed' FROM generate_series(100001, 103000) g",
		"UPDATE s SET v = 'doomed too' WHERE id <= 100",
		"UPDATE u SET name = 'doomed' WHERE id <= 5")
	e.waitPending(xid, 5000, false)
	txExec(t, tx, "ROLLBACK TO SAVEPOINT a")
	// Commits in between: u (a row the streamed transaction changes next,
	// and one it does not), o.
	e.exec("UPDATE u SET name = 'between' WHERE id IN (6, 7)", "INSERT INTO o VALUES (11, 'between')")
	txExec(t, tx,
		"UPDATE u SET name = 'x' || name WHERE id IN (6, 8)", // big unchanged: TOAST
		"SAVEPOINT b",
		"INSERT INTO s SELECT g, 'kept' FROM generate_series(5001, 7000) g",
		"RELEASE SAVEPOINT b",
		"SAVEPOINT c",
		"DELETE FROM s WHERE id BETWEEN 1 AND 50",
		"ROLLBACK TO SAVEPOINT c",
		"DELETE FROM s WHERE id BETWEEN 51 AND 60")
	e.exec("UPDATE o SET v = 'between again' WHERE id = 1")
	before := e.m.StreamsAdopted()
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.check()
	if got := e.m.StreamsAdopted() - before; got != 1 {
		t.Fatalf("%d streamed transactions committed from their pending state, want 1", got)
	}

	// 2: a commit in between changes a table whose pending edits are
	// spilled (s), and a multiset table the streamed one changes (f).
	tx, xid = e.openTxn()
	txExec(t, tx,
		"SAVEPOINT a",
		"UPDATE s SET v = 'doomed' WHERE id > 4000",
		"ROLLBACK TO SAVEPOINT a",
		"UPDATE s SET v = 'second'",
		"DELETE FROM f WHERE a = 1")
	// About 5,000 changes after the subtransaction's abort (it empties
	// the pending state): s is spilled in it by now.
	e.waitPending(xid, 4500, true)
	e.exec("INSERT INTO s VALUES (200000, 'between')", "INSERT INTO f VALUES (2, 'f'), (1, 'f')")
	txExec(t, tx, "INSERT INTO f VALUES (2, 'f')", "UPDATE s SET v = 'late' WHERE id BETWEEN 7000 AND 7010")
	before = e.m.StreamsAdopted()
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.check()
	if got := e.m.StreamsAdopted() - before; got != 0 {
		t.Fatalf("%d streamed transactions committed from a stale pending state, want 0 (replayed)", got)
	}
}

// TestStreamedAbortLeavesNoTrace: a streamed transaction applied ahead
// (spilled into scratch trees) and then rolled back leaves no pending
// state, no spool file and nothing in the tables.
func TestStreamedAbortLeavesNoTrace(t *testing.T) {
	e := newE2E(t, Options{SpillRows: 1000}, []string{"public.s"},
		"CREATE TABLE s (id int PRIMARY KEY, v text)",
		"INSERT INTO s SELECT g, 'old' FROM generate_series(1, 100) g")
	e.start()
	e.sync()
	tx, xid := e.openTxn()
	txExec(t, tx, "INSERT INTO s SELECT g, repeat('z', 40) FROM generate_series(1001, 6000) g",
		"UPDATE s SET v = 'gone' WHERE id <= 100", "DELETE FROM s WHERE id > 50 AND id <= 100")
	e.waitPending(xid, 4000, false)
	if err := tx.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.exec("INSERT INTO s VALUES (0, 'after')")
	e.check()
	if n, _ := e.m.StreamPending(xid); n != 0 {
		t.Fatalf("aborted xid %d still has a pending state of %d changes", xid, n)
	}
	spooled, err := filepath.Glob(filepath.Join(e.spool, "*", "xid-*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(spooled) != 0 {
		t.Fatalf("spool files left: %v", spooled)
	}
}

// TestStreamedCrashMidStream: the mirror crashes (Badger closed under it,
// nothing flushed) while a streamed transaction's changes are applied
// ahead and spilled into scratch trees; after the restart nothing of it
// is visible, and once it commits (sent again from its first chunk) the
// table equals PostgreSQL's.
func TestStreamedCrashMidStream(t *testing.T) {
	e := newE2E(t, Options{SpillRows: 1000}, []string{"public.s", "public.m"},
		"CREATE TABLE s (id int PRIMARY KEY, v text)",
		"CREATE TABLE m (id int PRIMARY KEY)",
		"INSERT INTO s SELECT g, 'old' FROM generate_series(1, 500) g")
	e.start()
	e.sync()
	tx, xid := e.openTxn()
	txExec(t, tx, "INSERT INTO s SELECT g, repeat('c', 40) FROM generate_series(1001, 6000) g",
		"UPDATE s SET v = 'new' WHERE id <= 300")
	e.waitPending(xid, 4000, false)
	e.reopen(true)
	// A commit after the restart: once the head has it, the restarted
	// stream has passed the open transaction's chunks again.
	e.exec("INSERT INTO m VALUES (1)")
	e.waitRows("public.m", 1)
	e.compare()
	txExec(t, tx, "DELETE FROM s WHERE id BETWEEN 1 AND 10")
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.check()
	if entries, err := os.ReadDir(e.spool); err == nil {
		for _, d := range entries {
			if strings.HasPrefix(d.Name(), "sidecar-spool-") {
				files, _ := filepath.Glob(filepath.Join(e.spool, d.Name(), "xid-*"))
				if len(files) != 0 {
					t.Fatalf("spool files left after the commit: %v", files)
				}
			}
		}
	}
	t.Logf("adopted %d", e.m.StreamsAdopted())
}
