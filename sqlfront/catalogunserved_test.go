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

// A pg_catalog name the followed major lacks (pg_stat_io before 16,
// pg_publication_namespace on 14) or no major has is 42P01 as PostgreSQL
// says, on the flat and the engine path; one it has and sidecar does not
// serve is 0A000. Run on 14 to 18 (.ci/matrix-tests): on 14 sidecar
// answered 0A000 for pg_publication_namespace, and for pg_nosuch on
// every major.
func TestSystemRelationNamesByMajor(t *testing.T) {
	r := newRig(t, []string{"public.items"}, []string{"CREATE TABLE items (id int PRIMARY KEY)"})
	for _, q := range []string{
		"SELECT * FROM pg_nosuch",
		"SELECT * FROM pg_catalog.pg_nosuch",
		"SELECT * FROM information_schema.nosuch",
		"SELECT c.relname FROM pg_class c JOIN pg_nosuch x ON true WHERE c.oid = 'items'::regclass",
		"SELECT count(*) FROM pg_stat_io",
		"SELECT count(*) FROM pg_catalog.pg_wait_events",
		"SELECT count(*) FROM pg_stat_checkpointer",
		"SELECT count(*) FROM pg_aios",
		"SELECT * FROM pg_publication_namespace",
		"SELECT c.relname FROM pg_class c JOIN pg_stat_io x ON true WHERE c.oid = 'items'::regclass",
		"SELECT count(*) FROM pg_stat_user_tables",
	} {
		want, werr := psql(t, r.pgURL, "-v", "VERBOSITY=verbose", "-c", q)
		got, gerr := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", q)
		switch {
		case werr != nil && strings.Contains(want, "42P01"):
			if gerr == nil || !strings.Contains(got, "42P01") {
				t.Errorf("%s: PostgreSQL 42P01, sidecar (%v) %s", q, gerr, got)
			}
		case werr != nil:
			t.Fatalf("%s: PostgreSQL failed: %s", q, want)
		case gerr != nil && !strings.Contains(got, "0A000"):
			t.Errorf("%s: PostgreSQL answers, sidecar neither answers nor refuses 0A000: %s", q, got)
		}
	}
}
