package main

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/verify"
)

// oddTable is a table whose schema holds a dot and capitals and whose
// name holds a space: split at the first dot, its name would read as
// schema "Mixed", table `Case"."Odd Name`. Its SQL spelling is also its
// canonical name (mirror key, status, API, CLI).
const oddTable = `"Mixed.Case"."Odd Name"`

// oddSchema creates oddTable with rows 1-200, and a decoy
// "Mixed"."Case.Odd Name" with the same columns and rows, the table a
// name split at its first dot would hit.
var oddSchema = []string{
	`CREATE SCHEMA "Mixed.Case"`,
	`CREATE TABLE "Mixed.Case"."Odd Name" (id int8 PRIMARY KEY, "Val" text, n numeric)`,
	`INSERT INTO "Mixed.Case"."Odd Name" SELECT g, 'v' || g, g * 1.5 FROM generate_series(1, 200) g`,
	`CREATE SCHEMA "Mixed"`,
	`CREATE TABLE "Mixed"."Case.Odd Name" (id int8 PRIMARY KEY, "Val" text, n numeric)`,
	`INSERT INTO "Mixed"."Case.Odd Name" SELECT g, 'v' || g, g * 1.5 FROM generate_series(1, 200) g`,
}

// oddRows reads a table of oddSchema's shape as JSON rows print it: column
// name to PostgreSQL's text output (nil for NULL), by id.
func oddRows(t *testing.T, dbURL, table string) map[string]map[string]*string {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), `SELECT id::text, "Val", n::text FROM `+table)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]*string{}
	for rows.Next() {
		var id string
		var val, n *string
		if err := rows.Scan(&id, &val, &n); err != nil {
			t.Fatal(err)
		}
		out[id] = map[string]*string{"id": &id, "Val": val, "n": n}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// jsonRows decodes `--format json` row output (one object per line) by id.
func jsonRows(t *testing.T, out string) map[string]map[string]*string {
	t.Helper()
	rows := map[string]map[string]*string{}
	for line := range strings.Lines(out) {
		var r map[string]*string
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("row %q: %v", line, err)
		}
		if r["id"] == nil {
			t.Fatalf("row without id: %q", line)
		}
		rows[*r["id"]] = r
	}
	return rows
}

func mapsUnion[V any](a, b map[string]V) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

func sameRows(a, b map[string]map[string]*string) bool {
	return maps.EqualFunc(a, b, func(x, y map[string]*string) bool {
		return maps.EqualFunc(x, y, func(p, q *string) bool { return (p == nil) == (q == nil) && (p == nil || *p == *q) })
	})
}

// TestQuotedTableNameEndToEnd follows a table that needs quoting and has a
// dot inside its schema's name, configured as in SQL, through `sidecar
// run` (copy, stream, resync) and reads it back through the daemon's API
// with the CLI: status names it canonically, scan/get/log/diff --table
// take its name (and forgiving names like ITEMS for public.items), and the
// diff's SQL patch turns a copy of the old state into the new one in
// PostgreSQL without touching the decoy table a first-dot split would name.
func TestQuotedTableNameEndToEnd(t *testing.T) {
	src := pg.NewDB(t)
	mustExec(t, src, oddSchema...)
	mustExec(t, src, "CREATE TABLE items (id int PRIMARY KEY, note text)", "INSERT INTO items VALUES (1, 'one')")
	old := pg.NewDB(t) // receives the patch: holds the state before the changes
	mustExec(t, old, oddSchema...)

	file, _ := runConfig(t, src, `'`+oddTable+`', Items`)
	p := sidecarProcess(t, "run", "--config", file)
	base := p.waitListen(t)
	listen := strings.TrimPrefix(base, "http://")
	cli := func(args ...string) string {
		t.Helper()
		out, errOut, code := sidecar(t, append(args, "--config", file, "--listen", listen)...)
		if code != 0 {
			t.Fatalf("sidecar %q: exit %d\n%s\n%s", args, code, out, errOut)
		}
		return out
	}
	status := func() daemon.Status {
		t.Helper()
		var st daemon.Status
		code, body := httpBody(t, base+"/api/status")
		if err := json.Unmarshal([]byte(body), &st); code != 200 || err != nil {
			t.Fatalf("/api/status %d: %v\n%s", code, err, body)
		}
		return st
	}
	// sync waits until the mirror holds every commit so far and returns
	// the server's WAL position as a ref. It waits for a marker commit
	// past that position: the WAL may end with records that are no
	// followed commit (autovacuum, running xacts), which Durable never
	// reaches.
	sync := func() string {
		t.Helper()
		target := queryLSN(t, src, "SELECT pg_current_wal_insert_lsn()::text")
		mustExec(t, src, "UPDATE items SET note = note WHERE id = 1") // changes no row's content
		daemontest.WaitDurable(t, base, target, 0)
		return target.String()
	}
	waitFor(t, "streaming", 60*time.Second, func() bool { return status().Phase == "streaming" })
	mustExec(t, src, "UPDATE items SET note = 'before' WHERE id = 1") // a commit to wait for
	before := sync()

	st := status()
	got := map[string]string{}
	for _, ts := range st.Tables {
		got[ts.Name] = ts.State
	}
	if want := map[string]string{oddTable: "ready", "public.items": "ready"}; !maps.Equal(got, want) {
		t.Fatalf("status tables %v, want %v", got, want)
	}
	if !slices.ContainsFunc(st.Tables, func(ts daemon.TableStatus) bool { return ts.Name == oddTable && ts.Rows == 200 }) {
		t.Errorf("status: %s should have 200 rows: %+v", oddTable, st.Tables)
	}

	mustExec(t, src,
		`UPDATE "Mixed.Case"."Odd Name" SET "Val" = 'changed ' || id WHERE id % 7 = 0`,
		`UPDATE "Mixed.Case"."Odd Name" SET n = NULL WHERE id % 11 = 0`,
		`DELETE FROM "Mixed.Case"."Odd Name" WHERE id % 10 = 0`,
		`INSERT INTO "Mixed.Case"."Odd Name" VALUES (1000, 'new', 0.001), (1001, NULL, NULL)`,
		"UPDATE items SET note = 'after' WHERE id = 1")
	after := sync()
	want := oddRows(t, src, oddTable)

	if rows := jsonRows(t, cli("scan", oddTable, "--format", "json")); !sameRows(rows, want) {
		t.Errorf("scan %s through the daemon: %d rows differ from PostgreSQL's %d", oddTable, len(rows), len(want))
	}
	if out := cli("scan", "ITEMS", "--format", "json"); !strings.Contains(out, `"note":"after"`) {
		t.Errorf("scan ITEMS (public.items, folded): %s", out)
	}
	if rows := jsonRows(t, cli("get", oddTable, "7", "1000", "--format", "json")); !sameRows(rows, map[string]map[string]*string{"7": want["7"], "1000": want["1000"]}) {
		t.Errorf("get %s 7 1000: %v", oddTable, rows)
	}
	var tables []string
	for line := range strings.Lines(cli("log", "--table", oddTable, "--format", "json")) {
		var e struct {
			Tables []struct{ Table string } `json:"tables"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		for _, tc := range e.Tables {
			tables = append(tables, tc.Table)
		}
	}
	if !slices.Contains(tables, oddTable) || slices.ContainsFunc(tables, func(s string) bool { return s != oddTable && s != "public.items" }) {
		t.Errorf("log --table %s lists tables %v", oddTable, tables)
	}

	var diffTables []string
	var changed int
	for line := range strings.Lines(cli("diff", before, after, "--table", oddTable, "--format", "json")) {
		var e history.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("diff line %q: %v", line, err)
		}
		if e.Type == history.EventTable {
			diffTables = append(diffTables, e.Table)
		}
		if e.Type == history.EventRow {
			changed++
		}
	}
	prev := oddRows(t, old, oddTable) // the state at before
	differ := 0
	for id := range mapsUnion(prev, want) {
		if !sameRows(map[string]map[string]*string{id: prev[id]}, map[string]map[string]*string{id: want[id]}) {
			differ++
		}
	}
	if !slices.Equal(diffTables, []string{oddTable}) || changed != differ || differ == 0 {
		t.Errorf("diff --table %s: tables %v, %d row events; want only it, %d rows differ", oddTable, diffTables, changed, differ)
	}
	if out := cli("diff", before, after, "--table", "public.ITEMS", "--format", "json"); !strings.Contains(out, `"table":"public.items"`) || strings.Contains(out, "Mixed") {
		t.Errorf("diff --table public.ITEMS: %s", out)
	}

	patch := cli("diff", before, after, "--table", oddTable, "--format", "sql")
	conn, err := pgx.Connect(t.Context(), old)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), patch, pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatalf("apply the patch: %v\n%s", err, patch)
	}
	if rows := oddRows(t, old, oddTable); !sameRows(rows, want) {
		t.Errorf("after the patch %s has %d rows, PostgreSQL's source %d; they differ\n%s", oddTable, len(rows), len(want), patch)
	}
	if rows, orig := oddRows(t, old, `"Mixed"."Case.Odd Name"`), oddRows(t, src, `"Mixed"."Case.Odd Name"`); !sameRows(rows, orig) {
		t.Errorf("the patch changed the decoy \"Mixed\".\"Case.Odd Name\"\n%s", patch)
	}

	// verify compares the mirror with PostgreSQL, naming the table as
	// status does.
	var rep verify.Report
	vout := cli("verify", "--table", oddTable, "--format", "json")
	if err := json.Unmarshal([]byte(vout), &rep); err != nil || len(rep.Tables) != 1 || rep.Tables[0].Table != oddTable || rep.Tables[0].Result != verify.ResultEqual {
		t.Errorf("verify --table %s: %v\n%s", oddTable, err, vout)
	}

	// Resync by the name status lists: it must split back into the table.
	if out := cli("resync", oddTable, "--wait", "60s"); !strings.Contains(out, "copied again") {
		t.Errorf("resync %s: %s", oddTable, out)
	}
	for _, ts := range status().Tables {
		if ts.Name == oddTable && (ts.State != "ready" || ts.CopiedAt == "") {
			t.Errorf("after resync: %+v, want ready with a copy LSN", ts)
		}
	}
	mustExec(t, src, `UPDATE "Mixed.Case"."Odd Name" SET "Val" = 'after resync' WHERE id = 1`)
	sync()
	if rows := jsonRows(t, cli("scan", oddTable, "--format", "json")); !sameRows(rows, oddRows(t, src, oddTable)) {
		t.Errorf("scan after resync and a change differs from PostgreSQL")
	}

	// A name that needs quotes but has none is refused, saying how to quote.
	out, errOut, code := sidecar(t, "scan", "Mixed.Case.Odd Name", "--config", file, "--listen", listen)
	if code != 2 || !strings.Contains(errOut, "double-quoted") {
		t.Errorf("scan of an unquoted odd name: exit %d\n%s\n%s", code, out, errOut)
	}

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d after SIGTERM\n%s", code, p.output())
	}
	// Stopped: status reads the mirror itself and lists the same name.
	if out, errOut, code := sidecar(t, "status", "--config", file, "--format", "json"); code != 0 || !strings.Contains(out, strings.ReplaceAll(oddTable, `"`, `\"`)) {
		t.Errorf("status of the stopped mirror: exit %d\n%s\n%s", code, out, errOut)
	}
}
