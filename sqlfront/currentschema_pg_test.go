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
