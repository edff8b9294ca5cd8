package sqlfront_test

import "testing"

// A later CTE of a WITH whose earlier CTE was inlined ran its plan from
// before the rewrite: unpruned, so a scan of a table with a column of a
// type sql/exec lacks (inet) was refused "a column of type oid869" where
// the statement never reads that column (and the other rules were lost);
// EXPLAIN showed the pruned plan. Found by the lead's SaaS workload after
// CTE inlining landed (session 16).
func TestInlinedCTEKeepsLaterCTEsOptimized(t *testing.T) {
	r := newRig(t, []string{"public.ev", "public.us"}, []string{
		"CREATE TABLE us (id int PRIMARY KEY, signup timestamptz)",
		"CREATE TABLE ev (id int PRIMARY KEY, user_id int, at timestamptz, ip inet)",
		"INSERT INTO us SELECT i, timestamptz '2024-01-01 00:00+00' + i * interval '9 days' FROM generate_series(1, 40) i",
		"INSERT INTO ev SELECT i, 1 + i % 40, timestamptz '2024-02-01 00:00+00' + i * interval '5 hours', ('10.0.0.' || i % 200)::inet FROM generate_series(1, 400) i",
	})
	catalogCompare(t, r, []string{
		"WITH cohort AS (SELECT id, date_trunc('month', signup) c FROM us), act AS (SELECT DISTINCT user_id, date_trunc('month', at) m FROM ev) " +
			"SELECT c, count(DISTINCT a.user_id) FROM cohort JOIN act a ON a.user_id = cohort.id GROUP BY 1 ORDER BY 1",
		"WITH a AS (SELECT id, user_id FROM ev WHERE id < 50), b AS (SELECT user_id FROM a) SELECT count(*) FROM b x JOIN b y USING (user_id)",
	}, nil)
}
