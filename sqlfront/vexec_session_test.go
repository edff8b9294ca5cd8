package sqlfront_test

import (
	"strings"
	"testing"
)

// TestCurrentSettingOnEngine: current_setting in a statement sql/exec
// runs (pg_typeof, a subquery, a column argument) answers as PostgreSQL;
// it was refused as "a function sidecar does not know". The value is
// read when the call runs, so a SET earlier in the same simple query is
// seen; an unknown name fails 42704 unless missing_ok.
func TestCurrentSettingOnEngine(t *testing.T) {
	r := newRig(t, []string{"public.t"}, []string{"CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)"})
	catalogCompare(t, r, []string{
		"SELECT current_setting('DateStyle'), pg_typeof(1.5)",
		"SELECT current_setting('nosuch.thing', true) IS NULL, pg_typeof(1)",
		"SELECT current_setting(NULL), pg_typeof(1)",
		"SELECT s, current_setting(s) FROM (VALUES ('search_path'), ('integer_datetimes'), ('IntervalStyle')) v(s) ORDER BY 1",
		"SELECT current_setting('application_name') FROM (SELECT * FROM t) s",
		"SET application_name = 'probe'; SELECT current_setting('application_name'), pg_typeof(1)",
	}, nil)
	first := func(out string) string {
		line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
		return line
	}
	for _, q := range []string{
		"SELECT current_setting('nosuch_thing'), pg_typeof(1)",
		"SELECT current_setting('nosuch.thing', false) FROM (SELECT * FROM t) s",
	} {
		want, _ := psql(t, r.pgURL, "-At", "-v", "VERBOSITY=verbose", "-c", q)
		got, _ := psql(t, r.sqlURL, "-At", "-v", "VERBOSITY=verbose", "-c", q)
		if first(got) != first(want) {
			t.Errorf("%s:\n  sidecar    %q\n  PostgreSQL %q", q, first(got), first(want))
		}
	}
}
