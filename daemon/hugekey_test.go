package daemon

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
)

// TestHugeIdentityFullRow: a REPLICA IDENTITY FULL table's key is its
// whole row, and the in-memory HEAD's index takes keys of at most 1 MiB
// (radixindex.MaxKeyLen). A row of 1.2 MB (PostgreSQL's rowtypes.sql
// inserts one) panicked the whole process, in the HEAD build at the
// copy ("radixindex: a key of 1200012 bytes exceeds MaxKeyLen") and at
// apply. Now the HEAD declines it (reads go to the trees) and the
// daemon follows on: the row is copied, a second one streamed, and the
// mirror equals PostgreSQL.
func TestHugeIdentityFullRow(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url,
		"CREATE TABLE wide (a int, t text)", "ALTER TABLE wide REPLICA IDENTITY FULL",
		"INSERT INTO wide VALUES (1, repeat('x', 1200000)), (2, 'small')",
		"CREATE TABLE keep (id int PRIMARY KEY, v text)",
		"INSERT INTO keep SELECT g, 'v' || g FROM generate_series(1, 20) g")
	cfg := testConfig(t, url, "public.wide", "public.keep")
	var logs syncBuilder
	r := start(t, cfg, &logs)
	r.waitDurable(t, marker(t, url, "UPDATE keep SET v = 'changed' WHERE id = 1"))
	execSQL(t, url, "INSERT INTO wide VALUES (3, repeat('y', 1100000))", "INSERT INTO wide VALUES (4, 'after')")
	r.waitDurable(t, marker(t, url, "UPDATE keep SET v = 'again' WHERE id = 2"))
	if err := r.stop(); err != nil {
		t.Fatalf("stop: %v\n%s", err, logs.String())
	}
	for _, tbl := range []string{"wide", "keep"} {
		_, got := mirrortest.MirrorRows(t, cfg.DataDir, "public."+tbl)
		want := mirrortest.PGRows(t, url, tbl)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: mirror %d rows, PostgreSQL %d; they differ", tbl, len(got), len(want))
		}
	}
}

// TestHugeKeyDeclinesOnlyItsTable (s27 item 1): a REPLICA IDENTITY FULL
// row longer than the in-memory HEAD's index takes used to fail the
// whole model (an apply: every table's reads went to the trees, and the
// daemon rebuilt every table, failing again, each minute). Now only that
// table is declined: the other one stays served from the HEAD — the same
// table, not rebuilt — both answer as PostgreSQL, a restart keeps it so,
// and once the long row is gone the declined table is read into the HEAD
// again.
func TestHugeKeyDeclinesOnlyItsTable(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url,
		"CREATE TABLE wide (a int, t text)", "ALTER TABLE wide REPLICA IDENTITY FULL",
		"INSERT INTO wide VALUES (1, 'one'), (2, 'two')",
		"CREATE TABLE keep (id int PRIMARY KEY, v int)",
		"INSERT INTO keep SELECT g, g FROM generate_series(1, 20) g")
	cfg := testConfig(t, url, "public.wide", "public.keep")
	var logs syncBuilder
	r, model := startWithModel(t, Options{Config: cfg}, &logs)
	waitHeadRows(t, model, "public.wide", 2)
	waitHeadRows(t, model, "public.keep", 20)
	daemontest.Eventually(t, "in-memory HEAD ready", 0, func() bool { st := r.status(t); return st.Head != nil && st.Head.Phase == "ready" })

	// query asks /api/query for count and sum of table and wants
	// PostgreSQL's answer; it returns where it was read.
	query := func(r *running, table, col string) string {
		t.Helper()
		var n, sum int64
		pgQueryRow(t, url, fmt.Sprintf("SELECT count(*), coalesce(sum(%s), 0) FROM %s", col, table), &n, &sum)
		want := fmt.Sprintf(`{"count(*)":"%d","sum(%s)":"%d"}`, n, col, sum)
		code, got := postQuery(t, r.addr, fmt.Sprintf(`{"table":"public.%s","aggs":[{"func":"count"},{"func":"sum","col":"%s"}]}`, table, col))
		if code != 200 || !strings.HasSuffix(got, want+"\n") {
			t.Fatalf("/api/query %s: %d %s, want %s\n%s", table, code, got, want, logs.String())
		}
		if strings.Contains(got, `"read":"head"`) {
			return "head"
		}
		return "tree"
	}
	waitRead := func(r *running, table, col, want string) {
		t.Helper()
		var got string
		daemontest.Eventually(t, fmt.Sprintf("%s read from the %s", table, want), 0, func() bool {
			got = query(r, table, col)
			return got == want
		}, func() string { return fmt.Sprintf("read from the %s; log:\n%s", got, logs.String()) })
	}
	waitRead(r, "keep", "v", "head")
	waitRead(r, "wide", "a", "head")
	keepTable := model.Table("public.keep")

	// A row of 1.1 MB streamed into wide: the apply path.
	r.waitDurable(t, marker(t, url, "INSERT INTO wide VALUES (3, repeat('y', 1100000))"))
	r.waitDurable(t, marker(t, url, "UPDATE keep SET v = v + 1 WHERE id = 1"))
	waitRead(r, "keep", "v", "head")
	if got := query(r, "wide", "a"); got != "tree" {
		t.Fatalf("wide read from the %s with a row too long for the HEAD", got)
	}
	if model.Unusable() || model.Table("public.keep") != keepTable {
		t.Fatalf("the other table left the HEAD: unusable %v, keep rebuilt %v", model.Unusable(), model.Table("public.keep") != keepTable)
	}
	if d := model.Declined(); len(d) != 1 || d[0].Table != "public.wide" || d[0].LongRows != 1 {
		t.Fatalf("declined: %+v, want public.wide with one long row", d)
	}
	if st := r.status(t); st.Head == nil || len(st.Head.Declined) != 1 || st.Head.Declined[0].Table != "public.wide" {
		t.Fatalf("status head %+v, want public.wide declined", st.Head)
	}
	// More changes of both: no rebuild, still one long row, same answers.
	r.waitDurable(t, marker(t, url, "INSERT INTO wide VALUES (4, 'four')"))
	r.waitDurable(t, marker(t, url, "UPDATE keep SET v = v + 1 WHERE id = 2"))
	waitRead(r, "keep", "v", "head")
	if query(r, "wide", "a") != "tree" || model.Table("public.keep") != keepTable || model.Unusable() {
		t.Fatal("after more changes: wide left the tree, or keep was rebuilt")
	}
	if st := r.status(t); st.Head == nil || st.Head.Phase != "ready" {
		t.Fatalf("HEAD status %+v, want ready", st.Head)
	}

	// A restart (the checkpoint restored, wide sent whole again: the
	// reset path) keeps it so.
	if err := r.stop(); err != nil {
		t.Fatalf("stop: %v\n%s", err, logs.String())
	}
	r2, model2 := startWithModel(t, Options{Config: cfg}, &logs)
	waitHeadRows(t, model2, "public.keep", 20)
	daemontest.Eventually(t, "in-memory HEAD ready after the restart", 0, func() bool {
		st := r2.status(t)
		return st.Head != nil && st.Head.Phase == "ready"
	})
	waitRead(r2, "keep", "v", "head")
	if got := query(r2, "wide", "a"); got != "tree" {
		t.Fatalf("after the restart, wide read from the %s", got)
	}
	if model2.Unusable() || len(model2.Declined()) != 1 {
		t.Fatalf("after the restart: unusable %v, declined %+v", model2.Unusable(), model2.Declined())
	}
	keepTable = model2.Table("public.keep")

	// The long row updated (a new long key) and then deleted: once no
	// long row is left, wide is read into the HEAD again, keep untouched.
	r2.waitDurable(t, marker(t, url, "UPDATE wide SET a = 30 WHERE a = 3"))
	if got := query(r2, "wide", "a"); got != "tree" {
		t.Fatalf("wide with its long row updated read from the %s", got)
	}
	r2.waitDurable(t, marker(t, url, "DELETE FROM wide WHERE a = 30"))
	waitRead(r2, "wide", "a", "head")
	waitRead(r2, "keep", "v", "head")
	if model2.Table("public.keep") != keepTable || model2.Unusable() || len(model2.Declined()) != 0 {
		t.Fatalf("after wide came back: keep rebuilt %v, unusable %v, declined %+v",
			model2.Table("public.keep") != keepTable, model2.Unusable(), model2.Declined())
	}
}

// pgQueryRow scans the one row q answers on PostgreSQL into dst.
func pgQueryRow(t *testing.T, url, q string, dst ...any) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(t.Context(), q).Scan(dst...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}
