package sqlfront_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// psqlScript runs script through psql's standard input on url (errors
// with their SQLSTATE, not stopping at one) and gives its output.
func psqlScript(t *testing.T, url, script string) string {
	t.Helper()
	cmd := exec.Command(psqlPath(t), "-X", "-v", "VERBOSITY=verbose", "-d", url, "-f", "-")
	cmd.Stdin = strings.NewReader(script)
	out, _ := cmd.CombinedOutput()
	// PostgreSQL's LOCATION (its C source) and sidecar's own hints are
	// not part of the answer.
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(l, "LOCATION:  ") && !strings.HasPrefix(l, "HINT:  sidecar") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// prepareScript exercises PREPARE, EXECUTE and DEALLOCATE in one
// session: declared and inferred parameter types, arguments coerced in
// the assignment context (an untyped literal, numeric to integer,
// bigint to integer; text to integer is 42804), the wrong number of
// arguments (42601), a name prepared twice (42P05), unknown names
// (26000), DEALLOCATE [PREPARE] name | ALL, DISCARD ALL, a PREPARE
// rolled back (prepared statements are not transactional), a failed
// transaction (25P02) and a write prepared, failing at EXECUTE in a
// read-only transaction (25006).
const prepareScript = `
PREPARE q1 (int) AS SELECT id, name FROM things WHERE id = $1;
EXECUTE q1(1);
EXECUTE q1('2');
EXECUTE q1(1.6);
EXECUTE q1(2::bigint);
EXECUTE q1('x');
EXECUTE q1('2'::text);
EXECUTE q1;
EXECUTE q1(1, 2);
PREPARE q1 AS SELECT 1;
PREPARE q2 AS SELECT count(*) AS n, min(id) FROM things WHERE name = $1 OR $1 IS NULL;
EXECUTE q2('a');
EXECUTE q2(NULL);
PREPARE q3 (int, text) AS SELECT $1 + 1 AS next, $2 || 'x', $1;
EXECUTE q3(41, 'a');
EXECUTE q3(-1, 7);
EXECUTE q3(1 + 2, upper('b'));
PREPARE "Q4" (numeric) AS SELECT n * $1 FROM things ORDER BY id;
EXECUTE "Q4"(2.5);
EXECUTE q4(1);
EXECUTE nosuch;
DEALLOCATE nosuch;
DEALLOCATE q2;
EXECUTE q2('a');
DEALLOCATE PREPARE q3;
EXECUTE q3(1, 'a');
BEGIN;
PREPARE q5 AS SELECT name FROM things ORDER BY id DESC LIMIT 1;
ROLLBACK;
EXECUTE q5;
BEGIN;
SELECT 1/0;
EXECUTE q5;
PREPARE q6 AS SELECT 1;
ROLLBACK;
EXECUTE q6;
PREPARE w AS INSERT INTO things VALUES (9, 'z', 1);
BEGIN READ ONLY;
EXECUTE w;
ROLLBACK;
DEALLOCATE ALL;
EXECUTE q1(1);
EXECUTE "Q4"(1);
PREPARE q7 AS SELECT 7;
DISCARD ALL;
EXECUTE q7;
PREPARE q8 (nosuchtype) AS SELECT 1;
`

// TestSQLPrepareExecute: PREPARE, EXECUTE and DEALLOCATE on the SQL
// port print what PostgreSQL prints through psql (refused before: "the
// statement PREPARE is not supported"), and through pgx's extended
// protocol EXECUTE describes and returns its statement's rows, runs a
// statement pgx prepared by name, and DEALLOCATE drops it.
func TestSQLPrepareExecute(t *testing.T) {
	r := newRig(t, []string{"public.things"}, []string{
		"CREATE TABLE things (id int PRIMARY KEY, name text, n numeric)",
		"INSERT INTO things VALUES (1, 'a', 1.5), (2, 'b', 2), (3, 'a', NULL)",
	})
	if got, want := psqlScript(t, r.sqlURL, prepareScript), psqlScript(t, r.pgURL, prepareScript); got != want {
		t.Errorf("psql:\n%s\nPostgreSQL:\n%s", got, want)
	}
	// pg_prepared_statements is not served: refused, not answered
	// without the session's statements.
	catalogCompare(t, r, nil, []string{"SELECT name, statement, from_sql FROM pg_prepared_statements ORDER BY 1"})
	ctx := context.Background()
	run := func(url string) string {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var b strings.Builder
		query := func(q string) {
			rows, err := conn.Query(ctx, q)
			if err != nil {
				fmt.Fprintf(&b, "%s: error %v\n", q, err)
				return
			}
			for _, f := range rows.FieldDescriptions() {
				fmt.Fprintf(&b, "%s: field %s %d %d\n", q, f.Name, f.DataTypeOID, f.TypeModifier)
			}
			for rows.Next() {
				vals, err := rows.Values()
				fmt.Fprintf(&b, "%s: %#v %v\n", q, vals, err)
			}
			rows.Close()
			fmt.Fprintf(&b, "%s: %s %v\n", q, rows.CommandTag(), rows.Err())
		}
		query("PREPARE pq (int) AS SELECT id, name, n FROM things WHERE id >= $1 ORDER BY id")
		query("EXECUTE pq(2)")
		query("EXECUTE pq('x')")
		if _, err := conn.Prepare(ctx, "byname", "SELECT name FROM things WHERE id = $1"); err != nil {
			t.Fatal(err)
		}
		query("EXECUTE byname(3)")
		query("DEALLOCATE byname")
		query("EXECUTE byname(3)")
		query("DEALLOCATE pq")
		query("DEALLOCATE pq")
		return b.String()
	}
	if got, want := run(r.sqlURL), run(r.pgURL); got != want {
		t.Errorf("pgx:\n%s\nPostgreSQL:\n%s", got, want)
	}
}
