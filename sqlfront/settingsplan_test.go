package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestSettingsChangePlans: a statement is planned under the settings in
// force when it runs. Before, the plan cache ignored search_path (after
// `SET search_path = s`, `SELECT count(*) FROM things` answered from
// public.things, whose plan was cached), and a simple query's statements
// were all planned before the first ran (`SET search_path = s; SELECT …`,
// `SET extra_float_digits = 0; SELECT f * 3 …` answered under the old
// values); SET IntervalStyle was accepted and ignored.
func TestSettingsChangePlans(t *testing.T) {
	r := newRig(t, []string{"s.things", "public.things"}, []string{
		"CREATE SCHEMA s",
		"CREATE TABLE s.things (id int PRIMARY KEY, v text)",
		"CREATE TABLE things (id int PRIMARY KEY, v text, f float8)",
		"INSERT INTO s.things VALUES (1, 'a'), (2, 'b')", "INSERT INTO things VALUES (1, 'x', 0.1)",
	})
	for _, args := range [][]string{
		{"-c", "SELECT count(*) FROM things"}, // cached under the default search_path
		{"-c", "SET search_path = s", "-c", "SELECT count(*) FROM things"},
		{"-c", "SET search_path = s, public", "-c", "SELECT count(*) FROM things", "-c", "RESET search_path", "-c", "SELECT count(*) FROM things"},
		{"-c", "SET search_path = s; SELECT count(*) FROM things"},
		{"-c", "SELECT count(*) FROM things; SET search_path = s; SELECT count(*), min(v) FROM things"},
		{"-c", "SET search_path = s; SELECT 'things'::regclass::oid = 's.things'::regclass::oid"},
		{"-c", "SET search_path = nosuch, s, public; SELECT count(*) FROM things t JOIN s.things u USING (id)"},
		{"-c", "SET extra_float_digits = 0; SELECT f, f * 3 FROM things"},
		{"-c", "SET extra_float_digits = 0; SELECT f * 3 FROM things; SET extra_float_digits = 3; SELECT f * 3 FROM things"},
	} {
		got, err := psql(t, r.sqlURL, args...)
		want, werr := psql(t, r.pgURL, args...)
		if werr != nil {
			t.Fatalf("%v on PostgreSQL: %v\n%s", args, werr, want)
		}
		if err != nil || got != want {
			t.Errorf("%v: (%v)\n%s\nPostgreSQL:\n%s", args, err, got, want)
		}
	}
	preparedAfterSet(t, r)
	// current_schema under the path: PostgreSQL's answer or refused.
	q := "SET search_path = s; SELECT current_schema, current_schema()"
	if got, err := psql(t, r.sqlURL, "-c", q); err != nil && !strings.Contains(got, "not supported") {
		t.Errorf("%s: (%v) %s", q, err, got)
	} else if want, _ := psql(t, r.pgURL, "-c", q); err == nil && got != want {
		t.Errorf("%s:\n%s\nPostgreSQL:\n%s", q, got, want)
	}
	// IntervalStyle other than postgres: followed (session 22: the
	// result column prints in the style), an interval printed inside
	// the statement refused naming it; never ignored.
	for _, q := range []string{"SET IntervalStyle = 'sql_standard'; SELECT interval '1 day 2 hours'",
		"SET IntervalStyle = 'iso_8601'; SELECT interval '1 day 2 hours'; SET IntervalStyle = postgres; SELECT interval '1 day 2 hours'"} {
		got, err := psql(t, r.sqlURL, "-c", q)
		want, werr := psql(t, r.pgURL, "-c", q)
		if err != nil || werr != nil || got != want {
			t.Errorf("%s: (%v) %s\nPostgreSQL (%v):\n%s", q, err, got, werr, want)
		}
	}
	q = "SET IntervalStyle = 'sql_standard'; SELECT (interval '1 day 2 hours')::text"
	if got, err := psql(t, r.sqlURL, "-c", q); err == nil || !strings.Contains(got, "IntervalStyle") {
		t.Errorf("%s: (%v) %s; want it refused naming IntervalStyle", q, err, got)
	}
}

// preparedAfterSet: a statement prepared (Parse) before a SET it depends
// on is planned again when next bound, as PostgreSQL's plan cache
// invalidates it; one whose result columns would change is refused as
// PostgreSQL refuses it. Before, the Parse-time plan ran: after
// `SET search_path = s` a statement prepared earlier counted
// public.things.
func preparedAfterSet(t *testing.T, r *rig) {
	ctx := context.Background()
	run := func(url string) string {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		var out strings.Builder
		step := func(sql string, args ...any) {
			rows, err := c.Query(ctx, sql, args...)
			if err == nil {
				for rows.Next() {
					vals, _ := rows.Values()
					fmt.Fprintf(&out, "%v;", vals)
				}
				rows.Close()
				err = rows.Err()
			}
			var pe *pgconn.PgError
			if errors.As(err, &pe) {
				fmt.Fprintf(&out, "error %s %s;", pe.Code, pe.Message)
			} else if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			out.WriteString("\n")
		}
		for _, ps := range []string{"n", "star", "v"} {
			q := map[string]string{"n": "SELECT count(*) FROM things", "star": "SELECT * FROM things ORDER BY id", "v": "SELECT v FROM things WHERE id = $1"}[ps]
			if _, err := c.Prepare(ctx, ps, q); err != nil {
				t.Fatalf("prepare %s: %v", q, err)
			}
		}
		step("n")
		step("v", 1)
		step("SET search_path = s")
		step("n")
		step("v", 2)
		step("star")
		step("SET search_path = public")
		step("n")
		step("star")
		return out.String()
	}
	got, want := run(r.sqlURL), run(r.pgURL)
	if got != want {
		t.Errorf("prepared statements across SET search_path:\n%s\nPostgreSQL:\n%s", got, want)
	}
}
