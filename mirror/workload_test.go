package mirror

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/wal"
)

var workloadSchema = []string{
	`CREATE TABLE parent (id int PRIMARY KEY, name text, big text)`,
	`CREATE TABLE child (id bigint PRIMARY KEY, parent_id int REFERENCES parent ON UPDATE CASCADE ON DELETE CASCADE, note text)`,
	`CREATE TABLE fullt (a int PRIMARY KEY, b text, c numeric)`,
	`ALTER TABLE fullt REPLICA IDENTITY FULL`,
	`CREATE TABLE idx (id int NOT NULL, code text NOT NULL, v text)`,
	`CREATE UNIQUE INDEX idx_code ON idx (code)`,
	`ALTER TABLE idx REPLICA IDENTITY USING INDEX idx_code`,
	// Out-of-line TOAST: incompressible ~10 kB values.
	`INSERT INTO parent SELECT g, 'p' || g, big FROM generate_series(1, 60) g,
		LATERAL (SELECT string_agg(md5(random()::text || g || i), '') AS big FROM generate_series(1, 320) i) x`,
	`INSERT INTO child SELECT g, 1 + g % 60, CASE WHEN g % 7 = 0 THEN NULL WHEN g % 5 = 0 THEN '' ELSE 'c' || g END FROM generate_series(1, 300) g`,
	`INSERT INTO fullt SELECT g, CASE WHEN g % 3 = 0 THEN NULL ELSE 'f' || g END, g * 1.5 FROM generate_series(1, 50) g`,
	`INSERT INTO idx SELECT g, 'k' || g, 'v' || g FROM generate_series(1, 50) g`,
}

var workloadTables = []string{"public.parent", "public.child", "public.fullt", "public.idx"}

// workload runs random transactions of the kinds the mirror must handle.
type workload struct {
	t    *testing.T
	e    *e2e
	rng  *rand.Rand
	next int
	big  int64
}

func (w *workload) str() any {
	switch w.rng.IntN(8) {
	case 0:
		return nil
	case 1:
		return ""
	}
	return fmt.Sprintf("s%d '\" \\ ü %d", w.rng.IntN(1000), w.rng.Uint32())
}

// txn runs one random transaction.
func (w *workload) txn() {
	w.t.Helper()
	ctx := w.t.Context()
	tx, err := w.e.conn.Begin(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	exec := func(sql string, args ...any) {
		w.t.Helper()
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			w.t.Fatalf("%s %v: %v", sql, args, err)
		}
	}
	for range 1 + w.rng.IntN(5) {
		w.next++
		n := 1000 + w.next
		switch op := w.rng.IntN(22); op {
		case 0, 1:
			exec(`INSERT INTO parent VALUES ($1, $2, CASE WHEN $3 THEN (SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 320)) ELSE 'small' END)`, n*10+op, w.str(), w.rng.IntN(2) == 0)
		case 2, 3:
			// big is not touched: an unchanged TOAST value ('u').
			exec(`UPDATE parent SET name = $1 WHERE id = (SELECT id FROM parent ORDER BY random() LIMIT 1)`, w.str())
		case 4:
			// Primary key change, cascading to child's foreign keys.
			exec(`UPDATE parent SET id = $1 WHERE id = (SELECT id FROM parent ORDER BY random() LIMIT 1)`, n*10+4)
		case 5:
			exec(`DELETE FROM parent WHERE id = (SELECT id FROM parent ORDER BY random() LIMIT 1)`)
		case 6, 7, 8:
			exec(`INSERT INTO child VALUES ($1, (SELECT id FROM parent ORDER BY random() LIMIT 1), $2)`, n*10+op, w.str())
		case 9, 10:
			exec(`UPDATE child SET note = $1 WHERE id = (SELECT id FROM child ORDER BY random() LIMIT 1)`, w.str())
		case 11:
			exec(`UPDATE child SET id = $1 WHERE id = (SELECT id FROM child ORDER BY random() LIMIT 1)`, n*10+11)
		case 12:
			exec(`DELETE FROM child WHERE id = (SELECT id FROM child ORDER BY random() LIMIT 1)`)
		case 13:
			exec(`INSERT INTO fullt VALUES ($1, $2, $3)`, n*10+13, w.str(), fmt.Sprintf("%d.%03d", w.rng.IntN(1000), w.rng.IntN(1000)))
		case 14:
			exec(`UPDATE fullt SET b = $1 WHERE a = (SELECT a FROM fullt ORDER BY random() LIMIT 1)`, w.str())
		case 15:
			exec(`DELETE FROM fullt WHERE a = (SELECT a FROM fullt ORDER BY random() LIMIT 1)`)
		case 16:
			exec(`INSERT INTO idx VALUES ($1, $2, $3)`, n*10+16, fmt.Sprintf("k%d", n*10+16), w.str())
		case 17:
			exec(`UPDATE idx SET v = $1 WHERE code = (SELECT code FROM idx ORDER BY random() LIMIT 1)`, w.str())
		case 18:
			// Identity (unique index) change.
			exec(`UPDATE idx SET code = $1 WHERE code = (SELECT code FROM idx ORDER BY random() LIMIT 1)`, fmt.Sprintf("k%d", n*10+18))
		case 19:
			exec(`DELETE FROM idx WHERE code = (SELECT code FROM idx ORDER BY random() LIMIT 1)`)
		case 20:
			if w.rng.IntN(15) == 0 {
				// One relation named, another truncated by CASCADE.
				exec(`TRUNCATE parent CASCADE`)
				exec(`INSERT INTO parent SELECT g, 'again' || g, NULL FROM generate_series($1::int, $1::int + 9) g`, n*10)
			}
		case 21:
			// A large transaction (streamed in chunks) with a rolled-back
			// subtransaction.
			w.big++
			base := 1_000_000_000 + w.big*10_000
			exec(`INSERT INTO child SELECT g, NULL, repeat('x', 50) FROM generate_series($1::bigint, $1::bigint + 999) g`, base)
			exec(`SAVEPOINT s`)
			exec(`INSERT INTO child SELECT g, NULL, 'rolled back' FROM generate_series($1::bigint, $1::bigint + 999) g`, base+5000)
			exec(`UPDATE child SET note = 'rolled back too' WHERE id < $1`, base)
			exec(`ROLLBACK TO SAVEPOINT s`)
			exec(`UPDATE child SET note = 'kept' WHERE id BETWEEN $1 AND $1 + 99`, base)
		}
	}
	if w.rng.IntN(15) == 0 {
		if err := tx.Rollback(ctx); err != nil {
			w.t.Fatal(err)
		}
		return
	}
	if err := tx.Commit(ctx); err != nil {
		w.t.Fatal(err)
	}
}

// TestEndToEnd follows a random workload (inserts, updates leaving TOAST
// values unchanged, primary-key and unique-index key changes, deletes,
// REPLICA IDENTITY FULL and USING INDEX tables, TRUNCATE … CASCADE, NULL
// and ”, streamed transactions with a rolled-back subtransaction) while
// the mirror is closed and reopened and crashes mid-stream, and compares
// every table with PostgreSQL row by row at several points.
func TestEndToEnd(t *testing.T) {
	seed := seed.New(t, seedFlag)
	e := newE2E(t, Options{GroupMaxRows: 500, GroupMaxAge: 200 * time.Millisecond, SpillRows: 1500}, workloadTables, workloadSchema...)
	// WAL that is no followed commit comes after the slot's consistent
	// point (as autovacuum's or the bgwriter's may at any time): the copy
	// is compared as it is, and the first sync must pass this WAL.
	e.exec(`CREATE TABLE unfollowed (id int PRIMARY KEY)`, `INSERT INTO unfollowed VALUES (1)`)
	e.compare() // the copy
	e.start()
	e.sync()
	w := &workload{t: t, e: e, rng: rand.New(rand.NewPCG(seed, 2))}
	for round := range 4 {
		for range 60 {
			w.txn()
		}
		switch round {
		case 0:
			e.check()
		case 1:
			e.reopen(false)
		case 2:
			e.reopen(true)
		}
	}
	e.check()
	st := e.m.Stats()
	t.Logf("since the last open: %+v", st)
	if e.m.Head().EndLSN == 0 {
		t.Fatal("no version recorded")
	}
}

// TestVersionEveryCommit makes 10 single-row commits and reads the table
// at each commit's LSN (with group flushes every 3 commits, so some reads
// replay the log and some start at a group root), then again after a
// reopen.
func TestVersionEveryCommit(t *testing.T) {
	e := newE2E(t, Options{GroupMaxRows: 3, GroupMaxAge: time.Hour}, []string{"public.v"},
		`CREATE TABLE v (id int PRIMARY KEY, n int)`, `INSERT INTO v VALUES (1, 0)`)
	e.start()
	var states []map[string]string
	for i := range 10 {
		if i%2 == 0 {
			e.exec(fmt.Sprintf(`INSERT INTO v VALUES (%d, %d)`, 100+i, i))
		} else {
			e.exec(fmt.Sprintf(`UPDATE v SET n = %d WHERE id = 1`, i))
		}
		e.sync()
		tr, err := e.m.TreeAt(t.Context(), "public.v", ^wal.LSN(0))
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, pgRows(t, e.url, tr, "public.v"))
	}
	check := func() {
		t.Helper()
		vs, err := e.m.Versions(0, ^wal.LSN(0), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != 10 {
			t.Fatalf("%d versions, want 10: %+v", len(vs), vs)
		}
		for i, v := range vs {
			if len(v.Tables) != 1 || v.Tables[0].Table != "public.v" || v.Tables[0].Rows != 1 || v.Xid == 0 || v.CommitTime.IsZero() {
				t.Fatalf("version %d: %+v", i, v)
			}
			tr, err := e.m.TreeAt(t.Context(), "public.v", v.EndLSN)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Version.EndLSN != v.EndLSN {
				t.Fatalf("tree at %s shows version %s", v.EndLSN, tr.Version.EndLSN)
			}
			if got := treeMap(t, tr); !mapsEqual(got, states[i]) {
				t.Fatalf("at commit %d (%s): %s", i, v.EndLSN, diffRows(got, states[i]))
			}
			// Just below the next commit: still this version.
			if i+1 < len(vs) {
				if at, err := e.m.VersionAt(vs[i+1].EndLSN - 1); err != nil || at.EndLSN != v.EndLSN {
					t.Fatalf("version at %s: %+v, %v", vs[i+1].EndLSN-1, at, err)
				}
			}
			if got, ok, err := e.m.Get(t.Context(), "public.v", []string{"1"}, v.EndLSN); err != nil || !ok || got == nil {
				t.Fatalf("get id 1 at %s: %q %v %v", v.EndLSN, got, ok, err)
			}
		}
		if _, err := e.m.VersionAt(vs[0].EndLSN - 1); err == nil {
			t.Fatal("a version before the first commit")
		}
	}
	check()
	e.reopen(false)
	check()
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestSchemaChangeResync: ADD COLUMN … DEFAULT changes existing rows
// without sending them; the table must go to resync_needed, and a Resync
// while the stream keeps running (writes continuing) brings it back equal
// to PostgreSQL, changes made during the resync included.
func TestSchemaChangeResync(t *testing.T) {
	e := newE2E(t, Options{}, []string{"public.s", "public.other"},
		`CREATE TABLE s (id int PRIMARY KEY, v text)`, `CREATE TABLE other (id int PRIMARY KEY)`,
		`INSERT INTO s SELECT g, 'v' || g FROM generate_series(1, 500) g`)
	e.start()
	e.exec(`INSERT INTO s VALUES (1000, 'before')`, `INSERT INTO other VALUES (1)`)
	before := e.sync()
	e.exec(`ALTER TABLE s ADD COLUMN d int DEFAULT 42`, `INSERT INTO s VALUES (1001, 'after', 7)`, `UPDATE s SET v = 'changed' WHERE id = 2`)
	e.sync()
	if got := e.m.NeedsResync(); len(got) != 1 || got[0] != "public.s" {
		t.Fatalf("NeedsResync = %v, want [public.s]", got)
	}
	// Writes keep coming while the table is re-copied.
	w := startWriter(t, e.url, func(ctx context.Context, conn *pgx.Conn, i int) error {
		for _, sql := range []string{`INSERT INTO s VALUES ($1, 'during', $1)`, `UPDATE s SET d = d + $1 WHERE id = 3`, `INSERT INTO other VALUES ($1)`} {
			if _, err := conn.Exec(ctx, sql, 2000+i); err != nil {
				return err
			}
		}
		return nil
	})
	w.await(t, 10)
	at, err := replication.Resync(t.Context(), replication.CopyOptions{ConnString: e.url, Workers: 2, RangeBlocks: 1}, []wal.TableName{{Schema: "public", Name: "s"}}, e.m)
	if err != nil {
		t.Fatal(err)
	}
	w.await(t, 10)
	w.finish(t)
	t.Logf("resynced at %s", at)
	e.check()
	info := e.m.Tables()
	if info[1].Name != "public.s" || info[1].State != StateReady || info[1].CopiedAt != at || len(info[1].Relation.Columns) != 3 {
		t.Fatalf("table after resync: %+v", info[1])
	}
	e.reopen(false)
	e.exec(`UPDATE s SET v = 'after reopen' WHERE id = 4`)
	e.check()
	// The versions before the resync keep the old schema and rows.
	old, err := e.m.TreeAt(t.Context(), "public.s", before)
	if err != nil {
		t.Fatal(err)
	}
	if len(old.Relation.Columns) != 2 {
		t.Fatalf("relation before the resync: %d columns, want 2", len(old.Relation.Columns))
	}
	if row, ok, err := old.Get(t.Context(), "1000"); err != nil || !ok || string(row) != "4:10006:before" {
		t.Fatalf("row 1000 before the resync: %q %v %v", row, ok, err)
	}
	if n, err := old.Count(t.Context()); err != nil || n != 501 {
		t.Fatalf("%d rows before the resync (%v), want 501", n, err)
	}
}

// TestUnchangedToast: an UPDATE that does not touch an out-of-line value
// sends it as unchanged; the mirror keeps its value (from the tree, from
// the pending group, and from earlier in the same transaction), and
// NULL and ” stay apart.
func TestUnchangedToast(t *testing.T) {
	e := newE2E(t, Options{GroupMaxRows: 2, GroupMaxAge: time.Hour}, []string{"public.tt"},
		`CREATE TABLE tt (id int PRIMARY KEY, small text, big text)`,
		`INSERT INTO tt SELECT g, NULL, (SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 400)) FROM generate_series(1, 5) g`)
	e.start()
	e.exec(`UPDATE tt SET small = '' WHERE id = 1`,
		`UPDATE tt SET small = 'x' WHERE id = 2`,
		`UPDATE tt SET small = 'y' WHERE id = 2`,
		`BEGIN`, `UPDATE tt SET small = 'a' WHERE id = 3`, `UPDATE tt SET small = 'b' WHERE id = 3`, `UPDATE tt SET id = 30 WHERE id = 3`, `COMMIT`,
		`INSERT INTO tt VALUES (6, '', NULL), (7, NULL, '')`)
	e.check()
	tr, err := e.m.TreeAt(t.Context(), "public.tt", ^wal.LSN(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"1", "2", "30"} {
		row, ok, err := tr.Get(t.Context(), id)
		if err != nil || !ok || len(row) < 12000 {
			t.Fatalf("row %s: %d bytes, %v, %v: the TOAST value was lost", id, len(row), ok, err)
		}
	}
}

// TestFullIdentityToast: under REPLICA IDENTITY FULL an UPDATE carries
// the whole old row (TOAST detoasted) and may still send an unchanged
// out-of-line value in the new row: it is taken from the old row, and
// the row is re-keyed (the key is the whole row).
func TestFullIdentityToast(t *testing.T) {
	e := newE2E(t, Options{}, []string{"public.f"},
		`CREATE TABLE f (id int PRIMARY KEY, small text, big text)`,
		`ALTER TABLE f REPLICA IDENTITY FULL`,
		`INSERT INTO f SELECT g, 's' || g, (SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 400)) FROM generate_series(1, 4) g`)
	e.start()
	e.exec(`UPDATE f SET small = 'changed' WHERE id = 1`,
		`UPDATE f SET small = NULL WHERE id = 2`,
		`DELETE FROM f WHERE id = 3`,
		`UPDATE f SET id = 40 WHERE id = 4`)
	e.check()
	tr, err := e.m.TreeAt(t.Context(), "public.f", ^wal.LSN(0))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := tr.Count(t.Context()); err != nil || n != 3 {
		t.Fatalf("%d rows (%v), want 3", n, err)
	}
}
