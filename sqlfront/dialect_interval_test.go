package sqlfront_test

import (
	"strings"
	"testing"
)

// TestIntervalInputFollowsMajor: PostgreSQL 14 reads some interval input
// otherwise than 15 on ('1.7 decades' is 16 years 11 mons on 14, 17 years
// from 15; '1.5 us' rounds to 2 µs on 14): following 14, sidecar refuses
// those with 0A000 naming 14 (types/interval14.go), on the flat path and
// on sql/exec, for literals and for text read from a column; every other
// answer is PostgreSQL's. Before, sidecar answered 15's value on 14.
func TestIntervalInputFollowsMajor(t *testing.T) {
	r := newRig(t, []string{"public.spans"}, []string{
		"CREATE TABLE spans (id int PRIMARY KEY, s text)",
		"INSERT INTO spans VALUES (1, '1.7 decades'), (2, '1 day 02:03:04.5'), (3, '1.5 us'), (4, '1.5 weeks')",
	})
	stmts := []string{
		"SELECT interval '1.7 decades'",
		"SELECT '0.3 years'::interval, '1 day 02:03:04.5'::interval",
		"SELECT '1.5 weeks'::interval, interval '3.25 hours'",
		"SELECT s::interval FROM spans WHERE id = 1",
		"SELECT s::interval FROM spans WHERE id IN (2, 4) ORDER BY id",
		"SELECT s::interval FROM (SELECT * FROM spans) n WHERE id = 3",
		"SELECT count(*) FROM (SELECT * FROM spans) n WHERE id <> 3 AND s::interval > interval '1 day'",
	}
	refused := 0
	for _, q := range stmts {
		got, want := firstLines(t, r, q)
		if got == want {
			continue
		}
		if pg.ServerVersion() < 150000 && strings.Contains(got, "0A000") && strings.Contains(got, "as PostgreSQL 14 does") {
			refused++
			continue
		}
		t.Errorf("%s:\n  sidecar    %q\n  PostgreSQL %q", q, got, want)
	}
	if pg.ServerVersion() < 150000 && refused < 3 {
		t.Errorf("%d statements refused following PostgreSQL 14, want the three reading '1.7 decades', '0.3 years' or '1.5 us'", refused)
	}
}
