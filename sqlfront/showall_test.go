package sqlfront_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// showAll reads SHOW ALL: its column names and name → setting.
func showAll(t *testing.T, url string) ([]string, map[string]string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SHOW ALL")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cols []string
	for _, f := range rows.FieldDescriptions() {
		cols = append(cols, f.Name)
	}
	settings := map[string]string{}
	for rows.Next() {
		var name, setting, desc string
		if err := rows.Scan(&name, &setting, &desc); err != nil {
			t.Fatal(err)
		}
		settings[name] = setting
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, settings
}

// Issue 23 item 3: SHOW ALL answers as PostgreSQL's: the same columns,
// and the same value for the settings both report that sidecar keeps as
// PostgreSQL does.
func TestShowAll(t *testing.T) {
	r := historyRig(t)
	pgCols, pgSet := showAll(t, r.pgURL)
	scCols, scSet := showAll(t, r.sqlURL)
	if len(pgCols) != len(scCols) || pgCols[0] != scCols[0] || pgCols[1] != scCols[1] || pgCols[2] != scCols[2] {
		t.Errorf("SHOW ALL columns %v, PostgreSQL %v", scCols, pgCols)
	}
	for _, name := range []string{"server_encoding", "client_encoding", "standard_conforming_strings", "integer_datetimes", "IntervalStyle", "DateStyle", "TimeZone", "bytea_output", "max_identifier_length"} {
		if scSet[name] != pgSet[name] {
			t.Errorf("SHOW ALL %s: %q, PostgreSQL %q", name, scSet[name], pgSet[name])
		}
	}
	if _, ok := scSet["sidecar.as_of"]; !ok {
		t.Errorf("SHOW ALL lacks sidecar.as_of: %v", scSet)
	}
}

// Issue 23 item 3: EXPLAIN over the wire answers as PostgreSQL's does in
// shape (one text column "QUERY PLAN", tag EXPLAIN) with sidecar's plan:
// where each step runs; ANALYZE is refused, never run.
func TestExplain(t *testing.T) {
	r := historyRig(t)
	ctx := context.Background()
	for _, url := range []string{r.pgURL, r.sqlURL} {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := conn.Query(ctx, "EXPLAIN SELECT name FROM accounts WHERE id = $1", 3)
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		var lines []string
		for rows.Next() {
			var l string
			if err := rows.Scan(&l); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, l)
		}
		if f := rows.FieldDescriptions(); len(f) != 1 || f[0].Name != "QUERY PLAN" || len(lines) == 0 {
			t.Errorf("%s: EXPLAIN columns %v, lines %q", url, f, lines)
		}
		tag := rows.CommandTag().String()
		rows.Close()
		if tag != "EXPLAIN" {
			t.Errorf("%s: tag %q", url, tag)
		}
		conn.Close(ctx)
	}
	conn, err := pgx.Connect(ctx, r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for q, want := range map[string]string{
		"EXPLAIN SELECT name FROM accounts WHERE id = 3": "Primary Key Lookup on public.accounts (1 keys)",
		"EXPLAIN SELECT count(*) FROM accounts":          "Aggregate on the query engine",
		// Rows of a two-table join: sql/exec's hash join (joinroute.go),
		// the flat evaluator's "Hash Join (evaluator)" before.
		"EXPLAIN SELECT a.name FROM accounts a JOIN accounts AS OF 'HEAD~1' b ON a.id = b.id": "Inner Join on a.id = b.id",
		"EXPLAIN (COSTS OFF) SELECT upper(name) FROM accounts ORDER BY 1 LIMIT 2":             "Limit",
		// Statements only sql/exec runs: its plan tree (they were refused
		// with the flat planner's "a FROM list with several items").
		"EXPLAIN SELECT count(*) FROM accounts a, accounts b WHERE a.id = b.id":                "Inner Join on a.id = b.id",
		"EXPLAIN SELECT name FROM accounts WHERE id IN (SELECT id FROM accounts WHERE id > 1)": "Semi Join",
		"EXPLAIN WITH x AS MATERIALIZED (SELECT id FROM accounts) SELECT count(*) FROM x":      "CTE x", // not inlined (sql/opt inline.go)
	} {
		got := strings.Join(queryStrings(t, conn, q), "\n")
		if !strings.Contains(got, want) {
			t.Errorf("%s:\n%s\nwant a line with %q", q, got, want)
		}
	}
	for _, q := range []string{"EXPLAIN ANALYZE SELECT 1", "EXPLAIN (FORMAT JSON) SELECT 1", "EXPLAIN SELECT jsonb_path_query('{}', '$.a.datetime()') FROM accounts a, accounts b"} {
		if _, err := conn.Exec(ctx, q); pgCode(err) != "0A000" {
			t.Errorf("%s: want 0A000, got %v", q, err)
		}
	}
}
