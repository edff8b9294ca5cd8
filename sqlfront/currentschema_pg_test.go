package sqlfront_test

import (
	"strings"
	"testing"
)

// TestCurrentSchemaPath: current_schema is the first schema of the
// search_path that exists, pg_catalog included when the path names it
// (the regression script expressions.sql: `SET search_path =
// 'pg_catalog'; SELECT current_schema` is pg_catalog; the port answered
// NULL). A schema sidecar cannot know exists (not followed) is refused,
// never skipped: it may exist in PostgreSQL and be the answer.
func TestCurrentSchemaPath(t *testing.T) {
	r := newRig(t, []string{"public.cs"}, []string{"CREATE TABLE cs (id int PRIMARY KEY)"})
	for _, q := range []string{
		"SET search_path = 'pg_catalog'; SELECT current_schema, current_schema()",
		"SET search_path = pg_catalog, public; SELECT current_schema",
		"SET search_path = public, pg_catalog; SELECT current_schema",
		"SET search_path = '$user', pg_catalog; SELECT current_schema",
		"SET search_path = pg_catalog; SELECT current_schemas(false), current_schemas(true)",
	} {
		got, err := psql(t, r.sqlURL, "-c", q)
		want, werr := psql(t, r.pgURL, "-c", q)
		if err != nil || werr != nil || got != want {
			t.Errorf("%s: (%v) %s\nPostgreSQL (%v):\n%s", q, err, got, werr, want)
		}
	}
	// A schema that may exist unfollowed: PostgreSQL's answer depends on
	// it, so the port refuses (here it does not exist: NULL, public).
	for _, q := range []string{"SET search_path = 'notme'; SELECT current_schema", "SET search_path = notme, public; SELECT current_schema"} {
		if got, err := psql(t, r.sqlURL, "-c", q); err == nil || !strings.Contains(got, "0A000") && !strings.Contains(got, "not supported") {
			t.Errorf("%s: (%v) %s; want it refused", q, err, got)
		}
	}
}

// TestFromFunctionRefused: a set-returning function in FROM that sidecar
// does not run (string_to_table, a user's) is refused 0A000 whatever its
// arguments; a NULL argument failed 22023 "arguments of string_to_table
// must be constants" where PostgreSQL answers (the regression script
// arrays.sql).
func TestFromFunctionRefused(t *testing.T) {
	r := newRig(t, []string{"public.fr"}, []string{"CREATE TABLE fr (id int PRIMARY KEY)"})
	for _, q := range []string{
		"SELECT v, v IS NULL FROM string_to_table('1|2|3', NULL) g(v)",
		"SELECT v FROM string_to_table(NULL, '|') g(v)",
	} {
		got, err := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", q)
		want, werr := psql(t, r.pgURL, "-c", q)
		if werr != nil {
			t.Fatalf("%s on PostgreSQL: %v\n%s", q, werr, want)
		}
		if (err == nil && got != want) || (err != nil && !strings.Contains(got, "0A000")) {
			t.Errorf("%s: (%v) %s\nwant PostgreSQL's answer or 0A000:\n%s", q, err, got, want)
		}
	}
}
