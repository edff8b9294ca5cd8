package daemon

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// A followed table dropped and created again under its name stayed
// "dropped" forever (its new rows never followed). It must be followed
// again, as a new incarnation, once the publication has it: the old
// table's history readable at the versions before, HEAD the new table,
// verify equal.

// With tables ["*"] and the sidecar's own publication: the poll for new
// tables adds the new table to the publication, and it is copied again.
// The SQL port answers the new table's rows; AS OF a version before the
// drop, the old table's (its keys int, the new table's bigint: read with
// the old table's key codec). A commit lands between the drop and the
// copy: the copy is recorded at the head's last version, so without one
// that version would show the new table (a resync's known trait).
func TestStarRecreatedTableFollowedAgain(t *testing.T) {
	s := startStar(t)
	execSQL(t, s.url, "CREATE TABLE re (id int PRIMARY KEY, v text)",
		"INSERT INTO re SELECT g, 'old' || g FROM generate_series(1, 200) g")
	waitTableReady(t, s.r, "public.re", s.logs)
	execSQL(t, s.url, "UPDATE re SET v = 'old-changed' WHERE id <= 10")
	st := s.settle(t)
	asOf := st.DurableLSN
	ctx := t.Context()
	oldAnswer := ask(ctx, s.url, "SELECT count(*), sum(id) FROM re")

	execSQL(t, s.url, "DROP TABLE re")
	daemontest.Eventually(t, "public.re reported dropped", 0,
		func() bool { return tableState(s.r.status(t), "public.re") == "dropped" },
		func() string { return fmt.Sprintf("%+v", s.r.status(t).Tables) })
	// A commit on another table before the re-creation (see above).
	s.settle(t)
	// Another shape, other rows, written right after the creation.
	execSQL(t, s.url, "CREATE TABLE re (id bigint PRIMARY KEY, w text, n int)",
		"INSERT INTO re SELECT g, 'new' || g, g % 7 FROM generate_series(1000, 1299) g")
	execSQL(t, s.url, "UPDATE re SET n = n + 100 WHERE id < 1010", "DELETE FROM re WHERE id > 1290")
	waitTableReady(t, s.r, "public.re", s.logs)
	if _, m := httpGet(t, s.r.addr+"/metrics"); strings.Contains(m, `sidecar_table_dropped{table="public.re"} 1`) {
		t.Errorf("/metrics still reports public.re dropped")
	}
	execSQL(t, s.url, "INSERT INTO re VALUES (5000, 'later', 1)")
	s.sameOnSQLPort(t, "SELECT count(*)::text || ' ' || sum(id)::text || ' ' || sum(n)::text || ' ' || max(w) FROM re")
	// The old table's history: as it was before the drop (on the SQL
	// port, through the columns both tables have: AS OF resolves columns
	// with today's relation; and its rows through the history API).
	if got := ask(ctx, s.sql, "SELECT count(*), sum(id) FROM re AS OF '"+asOf+"'"); got.code != "" || !slices.Equal(got.rows, oldAnswer.rows) {
		t.Errorf("AS OF %s (before the drop): sidecar %+v, PostgreSQL then %+v", asOf, got, oldAnswer)
	}
	if code, b := httpGet(t, fmt.Sprintf("%s/api/get?table=public.re&pk=3&as_of=%s", s.r.addr, asOf)); code != 200 || !strings.Contains(b, `"v":"old-changed"`) {
		t.Errorf("get of the old table at %s: %d %s", asOf, code, b)
	}
	if !strings.Contains(s.logs.String(), "followed table re-created in PostgreSQL") {
		t.Errorf("no log line for the re-created table")
	}
	s.finish(t, "re")
}

// Dropped and created again between two polls (never seen missing): the
// new table is followed all the same, not the old one's rows kept.
func TestStarTableRecreatedBetweenPolls(t *testing.T) {
	s := startStar(t)
	execSQL(t, s.url, "CREATE TABLE quick (id int PRIMARY KEY, v text)",
		"INSERT INTO quick SELECT g, 'old' FROM generate_series(1, 50) g")
	waitTableReady(t, s.r, "public.quick", s.logs)
	s.settle(t)
	execSQL(t, s.url, "BEGIN; DROP TABLE quick; CREATE TABLE quick (id int PRIMARY KEY, v text); INSERT INTO quick SELECT g, 'new' FROM generate_series(100, 120) g; COMMIT")
	s.sameOnSQLPort(t, "SELECT count(*)::text || ' ' || sum(id)::text || ' ' || min(v) FROM quick")
	waitTableReady(t, s.r, "public.quick", s.logs)
	s.finish(t, "quick")
}

// A named table in a publication the user made: after the re-creation it
// stays dropped (not published) until the user adds it to the
// publication again; then it is followed as a new incarnation.
func TestRecreatedTableInUserPublication(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url, "CREATE TABLE a (id int PRIMARY KEY, v text)", "INSERT INTO a SELECT g, 'a' FROM generate_series(1, 20) g",
		"CREATE TABLE b (id int PRIMARY KEY, v text)", "INSERT INTO b SELECT g, 'b' FROM generate_series(1, 20) g",
		"CREATE PUBLICATION mine FOR TABLE a, b")
	cfg := daemontest.Config(t, url, []string{"public.a", "public.b"}, "publication: mine")
	var logs syncBuilder
	logOnFailure(t, &logs)
	r := start(t, cfg, &logs)
	r.waitDurable(t, marker(t, url, "UPDATE a SET v = 'm' WHERE id = 1"))
	st := r.waitDurable(t, marker(t, url, "UPDATE b SET v = 'before-drop' WHERE id = 2"))
	asOf := st.DurableLSN

	execSQL(t, url, "DROP TABLE b", "CREATE TABLE b (id int PRIMARY KEY, v text)",
		"INSERT INTO b SELECT g, 'new' FROM generate_series(50, 60) g")
	daemontest.Eventually(t, "public.b reported dropped (re-created, not published)", 0,
		func() bool { return tableState(r.status(t), "public.b") == "dropped" },
		func() string { return fmt.Sprintf("%+v\n%s", r.status(t).Tables, logs.String()) })
	// Not followed while unpublished: the other table is.
	r.waitDurable(t, marker(t, url, "UPDATE a SET v = 'm2' WHERE id = 1"))
	if s := tableState(r.status(t), "public.b"); s != "dropped" {
		t.Fatalf("public.b, re-created and not published, is %q", s)
	}
	execSQL(t, url, "ALTER PUBLICATION mine ADD TABLE b", "UPDATE b SET v = 'after-add' WHERE id = 55")
	waitTableReady(t, r, "public.b", &logs)
	r.waitDurable(t, marker(t, url, "UPDATE a SET v = 'm3' WHERE id = 1"))
	verifyEqual(t, r, &logs)
	// The old table's history at a version before the drop.
	if code, b := httpGet(t, fmt.Sprintf("%s/api/get?table=public.b&pk=2&as_of=%s", r.addr, asOf)); code != 200 || !strings.Contains(b, "before-drop") {
		t.Errorf("get of the old table at %s: %d %s", asOf, code, b)
	}
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	sameRows(t, cfg.DataDir, url, "a", "b")
}
