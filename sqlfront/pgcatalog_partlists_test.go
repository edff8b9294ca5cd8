package sqlfront_test

import "testing"

// TestListingsWithPartitionedAndUnfollowed: pg_tables and
// information_schema.tables omitted the partitioned table above
// followed partitions (PostgreSQL lists it: BASE TABLE, relkind 'p'),
// and information_schema.columns counted one row for a relation whose
// columns sidecar does not read (an unfollowed table of six columns
// counted 1, a partitioned table none): `SELECT count(*) … WHERE
// table_schema = 'public'` answered 64 where PostgreSQL says 72 (seen
// by the lead on a pgbench database with a partitioned table). Both
// listings are identical now, and so are the counts and lists of the
// columns (read by the catalog poll since session 24; refused before).
func TestListingsWithPartitionedAndUnfollowed(t *testing.T) {
	r := newRig(t, []string{"public.meas", "public.plain"}, []string{
		"CREATE TABLE meas (id int NOT NULL, k int NOT NULL, v text, PRIMARY KEY (id, k)) PARTITION BY LIST (k)",
		"CREATE TABLE meas_1 PARTITION OF meas FOR VALUES IN (1)",
		"CREATE TABLE meas_2 PARTITION OF meas FOR VALUES IN (2)",
		"INSERT INTO meas SELECT g, 1 + g % 2, 'v' FROM generate_series(1, 20) g",
		"CREATE TABLE plain (id int PRIMARY KEY, a text)", "INSERT INTO plain VALUES (1, 'x')",
		"CREATE TABLE loose (a int, b int, c int, d int, e int, f int)", // not followed
	})
	psqlRig(r).same(t,
		`SELECT schemaname, tablename, hasindexes FROM pg_tables WHERE schemaname = 'public' ORDER BY 2`,
		`SELECT table_name, table_type, is_insertable_into FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
		`SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'`,
		`SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' AND table_name IN ('plain', 'meas_1') ORDER BY 1, 2`,
		// The columns of meas and loose are read since session 24
		// (pgcatalog_partlists_cols.go): these were refused 0A000.
		`SELECT count(*) FROM information_schema.columns WHERE table_schema = 'public'`,
		`SELECT table_name, count(*) FROM information_schema.columns WHERE table_schema = 'public' GROUP BY 1 ORDER BY 1`,
		`SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'meas' ORDER BY 1`,
	)
}
