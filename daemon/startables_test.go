package daemon

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/verify"
)

// logOnFailure logs the daemon's log lines when the test fails.
func logOnFailure(t *testing.T, logs *syncBuilder) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(logs.String())
		}
	})
}

// waitTableReady waits until status lists table as ready.
func waitTableReady(t *testing.T, r *running, table string, logs *syncBuilder) {
	t.Helper()
	var last string
	daemontest.Eventually(t, table+" followed and ready", 120*time.Second, func() bool {
		last = tableState(r.status(t), table)
		return last == "ready"
	}, func() string { return "state " + last + "\n" + logs.String() })
}

// verifyEqual runs POST /api/verify (every table) and wants equal.
func verifyEqual(t *testing.T, r *running, logs *syncBuilder) {
	t.Helper()
	var rep verify.Report
	if code := postJSON(t, r.addr+"/api/verify", map[string]any{}, &rep); code != 200 || rep.Result != verify.ResultEqual {
		t.Fatalf("verify: HTTP %d, result %q: %+v\n%s", code, rep.Result, rep, logs.String())
	}
}

// sameRows compares each table's rows in the (stopped) mirror with
// PostgreSQL's.
func sameRows(t *testing.T, dir, url string, tables ...string) {
	t.Helper()
	for _, tbl := range tables {
		_, got := mirrortest.MirrorRows(t, dir, "public."+tbl)
		if want := mirrortest.PGRows(t, url, tbl); !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("%s: mirror %d rows, PostgreSQL %d; they differ", tbl, len(got), len(want))
		}
	}
}

// TestStarFollowsTablesCreatedLater (issue 21): with tables ["*"], a table
// created after the first start was never followed, not even after a
// restart (the set resolved at the first start was kept). Now each is
// added to the sidecar's publication, copied at a consistent point while
// following and then streamed: one created and then filled, one created
// and filled in the same transaction, one written at a high rate while it
// is copied, and one created while the daemon is down. Each must equal
// PostgreSQL (verify, the SQL port, the mirror's rows); a table without a
// key is reported as not followed, never added to the publication.
func TestStarFollowsTablesCreatedLater(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url, "CREATE TABLE base (id int PRIMARY KEY, v text)",
		"INSERT INTO base SELECT g, 'b' || g FROM generate_series(1, 100) g")
	addr := sqlAddr(t)
	cfg := daemontest.Config(t, url, []string{`'*'`}, "sql:\n  listen: "+addr)
	var logs syncBuilder
	logOnFailure(t, &logs)
	r := start(t, cfg, &logs)
	r.waitDurable(t, marker(t, url, "UPDATE base SET v = 'm' WHERE id = 1"))

	// Created, then filled and changed in later transactions.
	execSQL(t, url, "CREATE TABLE jt (id int PRIMARY KEY, v text)",
		"INSERT INTO jt SELECT g, 'j' || g FROM generate_series(1, 500) g")
	// Created and filled in one transaction.
	execSQL(t, url, "BEGIN; CREATE TABLE onetx (id bigint PRIMARY KEY, n numeric); INSERT INTO onetx SELECT g, g * 1.5 FROM generate_series(1, 300) g; COMMIT")
	// Without a key: reported, not followed, not added (the application's
	// UPDATEs on it would fail once published).
	execSQL(t, url, "CREATE TABLE nokey (a int)", "INSERT INTO nokey VALUES (1)")

	// Created, then written at a high rate from before its copy until
	// after it: every change lands once.
	execSQL(t, url, "CREATE TABLE hot (id int PRIMARY KEY, v int NOT NULL)")
	var stop atomic.Bool
	var written atomic.Int64
	done := make(chan error, 1)
	go func() { done <- hotWriter(url, &stop, &written) }()
	execSQL(t, url, "UPDATE jt SET v = 'changed' WHERE id % 7 = 0", "DELETE FROM jt WHERE id > 450",
		"UPDATE onetx SET n = -n WHERE id < 10")
	for _, tbl := range []string{"public.jt", "public.onetx", "public.hot"} {
		waitTableReady(t, r, tbl, &logs)
	}
	// Keep writing a while after the copy landed.
	target := written.Load() + 2000
	daemontest.Eventually(t, "writes after the copy", 60*time.Second, func() bool { return written.Load() >= target })
	stop.Store(true)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	t.Logf("hot: %d statements written while it was picked up", written.Load())
	st := r.waitDurable(t, marker(t, url, "UPDATE base SET v = 'm2' WHERE id = 2"))
	if s := tableState(st, "public.nokey"); s != "" {
		t.Errorf("public.nokey is followed (%s)", s)
	}
	if !slices.ContainsFunc(st.NotFollowed, func(n NotFollowed) bool { return n.Table == "public.nokey" }) {
		t.Errorf("status not_followed %+v does not name public.nokey", st.NotFollowed)
	}
	var inPub bool
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(t.Context(), "SELECT EXISTS (SELECT 1 FROM pg_publication_tables WHERE pubname = $1 AND tablename = 'nokey')", cfg.Publication).Scan(&inPub); err != nil || inPub {
		t.Errorf("nokey in the publication: %v %v", inPub, err)
	}
	verifyEqual(t, r, &logs)
	sc := "postgres://sidecar@" + addr + "/sidecar?sslmode=disable"
	for _, q := range []string{"SELECT count(*)::text || ' ' || coalesce(sum(length(v)), 0)::text FROM jt",
		"SELECT count(*)::text || ' ' || sum(n)::text FROM onetx",
		"SELECT count(*)::text || ' ' || sum(v)::text FROM hot"} {
		var want string
		if err := conn.QueryRow(t.Context(), q).Scan(&want); err != nil {
			t.Fatal(err)
		}
		daemontest.WaitSQL(t, sc, q, want)
	}
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	sameRows(t, cfg.DataDir, url, "jt", "onetx", "hot", "base")

	// Created while the daemon is down: picked up at the restart.
	execSQL(t, url, "CREATE TABLE down_t (id int PRIMARY KEY, v text)",
		"INSERT INTO down_t SELECT g, 'd' || g FROM generate_series(1, 200) g",
		"INSERT INTO jt VALUES (1000, 'while down')")
	r = start(t, cfg, &logs)
	waitTableReady(t, r, "public.down_t", &logs)
	execSQL(t, url, "UPDATE down_t SET v = 'after' WHERE id < 20")
	r.waitDurable(t, marker(t, url, "UPDATE base SET v = 'm3' WHERE id = 3"))
	verifyEqual(t, r, &logs)
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	sameRows(t, cfg.DataDir, url, "jt", "onetx", "hot", "base", "down_t")
	if n := strings.Count(logs.String(), "resync failed"); n != 0 {
		t.Errorf("%d failed resyncs", n)
	}
}

// hotWriter inserts and updates rows of hot as fast as one connection
// can until stop, counting statements (bounded: at most 200,000 rows).
func hotWriter(url string, stop *atomic.Bool, written *atomic.Int64) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for i := 1; !stop.Load() && i <= 200_000; i++ {
		sql := fmt.Sprintf("INSERT INTO hot VALUES (%d, %d)", i, i)
		if i%3 == 0 {
			sql = fmt.Sprintf("UPDATE hot SET v = v + 1 WHERE id = %d", i/3)
		}
		if _, err := conn.Exec(ctx, sql); err != nil {
			return fmt.Errorf("hot writer: %w", err)
		}
		written.Add(1)
	}
	return nil
}

// TestStarUserPublication: with tables ["*"] and a publication the user
// made, the user owns it: a table created later and not in it is not
// followed (status says why), and is once the user adds it.
func TestStarUserPublication(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url, "CREATE TABLE a (id int PRIMARY KEY)", "INSERT INTO a SELECT generate_series(1, 10)",
		"CREATE TABLE b (id int PRIMARY KEY)", "INSERT INTO b SELECT generate_series(1, 10)",
		"CREATE PUBLICATION mine FOR TABLE a")
	cfg := daemontest.Config(t, url, []string{`'*'`}, "publication: mine")
	var logs syncBuilder
	logOnFailure(t, &logs)
	r := start(t, cfg, &logs)
	st := r.waitDurable(t, marker(t, url, "UPDATE a SET id = id WHERE id = 1"))
	if s := tableState(st, "public.b"); s != "" {
		t.Fatalf("public.b, not in the user's publication, is followed (%s)", s)
	}
	execSQL(t, url, "CREATE TABLE c (id int PRIMARY KEY)", "INSERT INTO c SELECT generate_series(1, 10)")
	daemontest.Eventually(t, "public.c named not followed", 60*time.Second, func() bool {
		return slices.ContainsFunc(r.status(t).NotFollowed, func(n NotFollowed) bool {
			return n.Table == "public.c" && strings.Contains(n.Reason, "not in publication mine")
		})
	}, func() string { return fmt.Sprintf("%+v", r.status(t).NotFollowed) })
	execSQL(t, url, "ALTER PUBLICATION mine ADD TABLE c", "INSERT INTO c VALUES (11)")
	waitTableReady(t, r, "public.c", &logs)
	execSQL(t, url, "DELETE FROM c WHERE id < 4")
	st = r.waitDurable(t, marker(t, url, "UPDATE a SET id = id WHERE id = 2"))
	if s := tableState(st, "public.b"); s != "" {
		t.Errorf("public.b is followed (%s)", s)
	}
	verifyEqual(t, r, &logs)
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	sameRows(t, cfg.DataDir, url, "a", "c")
}
