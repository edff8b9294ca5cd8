package sqlfront_test

import (
	"strings"
	"testing"
)

// TestFunctionsFollowMajor: functions whose results differ among
// PostgreSQL 14–18 answer as the followed major on sql/exec (a subquery
// in FROM sends each statement there). sidecar ran them on the
// unknown-major library, which refuses exactly these inputs (0A000):
// right, but not the followed server's answer. Run it with SIDECAR_PG_BIN
// on each major.
func TestFunctionsFollowMajor(t *testing.T) {
	r := newRig(t, []string{"public.t"}, []string{"CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)"})
	first := func(out string) string {
		line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
		return line
	}
	for _, q := range []string{
		"SELECT 2.5::numeric ^ 3 FROM (SELECT * FROM t) s",
		"SELECT power(1.1::numeric, 10), power(-3::numeric, 5) FROM (SELECT * FROM t) s",
		"SELECT quote_ident('json'), quote_ident('system_user'), quote_ident('merge_action') FROM (SELECT * FROM t) s",
		"SELECT date_trunc('hour', 'infinity'::timestamp) FROM (SELECT * FROM t) s",
		"SELECT date_trunc('foo', '-infinity'::timestamptz) FROM (SELECT * FROM t) s",
		"SELECT extract(quarter FROM interval '-5 months') FROM (SELECT * FROM t) s",
		"SELECT chr(-1) FROM (SELECT * FROM t) s",
	} {
		want, _ := psql(t, r.pgURL, "-At", "-v", "VERBOSITY=verbose", "-c", q)
		got, _ := psql(t, r.sqlURL, "-At", "-v", "VERBOSITY=verbose", "-c", q)
		if first(got) != first(want) {
			t.Errorf("%s:\n  sidecar    %q\n  PostgreSQL %q", q, first(got), first(want))
		}
	}
}
