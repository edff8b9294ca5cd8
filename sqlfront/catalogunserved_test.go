package sqlfront_test

import (
	"strings"
	"testing"
)

// TestUnqualifiedSystemRelations: an unqualified pg_… relation sidecar
// does not serve (pg_matviews, pg_stat_user_tables: BI tools read them)
// is refused 0A000 naming it, as pg_catalog.pg_… already was; it was
// 42P01 "does not exist", which PostgreSQL would not say. A name that is
// no relation anywhere stays 42P01.
func TestUnqualifiedSystemRelations(t *testing.T) {
	r := newRig(t, []string{"public.items"}, []string{"CREATE TABLE items (id int PRIMARY KEY)"})
	for q, code := range map[string]string{
		"SELECT matviewname FROM pg_matviews WHERE schemaname = 'public'": "0A000",
		"SELECT * FROM pg_stat_user_tables WHERE relname = 'items'":       "0A000",
		"SELECT * FROM pg_catalog.pg_stat_user_indexes":                   "0A000",
		"SELECT * FROM nosuch": "42P01",
	} {
		got, err := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", q)
		if err == nil || !strings.Contains(got, code) {
			t.Errorf("%s: (%v) %s; want %s", q, err, got, code)
		}
	}
}
