package sqlfront_test

import "testing"

// partDescribeSetup has partitioned tables of each kind with what psql's
// \d prints of one: a partition key of an expression, a primary key, a
// unique constraint, an expression index, a check constraint, foreign
// keys out of it and into it, a default, a column collation and comment,
// storage and statistics target settings, a middle level, a DEFAULT
// partition, a user trigger, and a partitioned table ("half") only one of
// whose partitions is followed.
var partDescribeSetup = []string{
	"CREATE TABLE ref (id int PRIMARY KEY)",
	`CREATE TABLE meas (id int NOT NULL, k int NOT NULL DEFAULT 1, v text COLLATE "C", r int REFERENCES ref, PRIMARY KEY (id, k), CHECK (k > 0), UNIQUE (v, k)) PARTITION BY LIST (k)`,
	"COMMENT ON COLUMN meas.v IS 'the v'", "ALTER TABLE meas ALTER COLUMN v SET STORAGE main", "ALTER TABLE meas ALTER COLUMN r SET STATISTICS 50",
	"CREATE TABLE meas_1 PARTITION OF meas FOR VALUES IN (1)",
	"CREATE TABLE meas_3 PARTITION OF meas FOR VALUES IN (3, 4) PARTITION BY LIST (k)",
	"CREATE TABLE meas_3a PARTITION OF meas_3 FOR VALUES IN (3)",
	"CREATE TABLE meas_3b PARTITION OF meas_3 FOR VALUES IN (4)",
	"CREATE TABLE back (id int PRIMARY KEY, k int, FOREIGN KEY (id, k) REFERENCES meas)",
	"CREATE INDEX meas_lv ON meas (lower(v))",
	"CREATE TABLE ev (id int, at date, note text, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)",
	"CREATE TABLE ev_2020 PARTITION OF ev FOR VALUES FROM ('2020-01-01') TO ('2021-01-01')",
	"CREATE TABLE ev_rest PARTITION OF ev DEFAULT",
	"CREATE FUNCTION noop() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END'",
	"CREATE TRIGGER ev_noop BEFORE INSERT ON ev FOR EACH ROW EXECUTE FUNCTION noop()",
	"CREATE TABLE tg (id int PRIMARY KEY)", "CREATE TRIGGER tg_noop BEFORE INSERT ON tg FOR EACH ROW EXECUTE FUNCTION noop()",
	"CREATE TABLE hp (id int, v text NOT NULL) PARTITION BY HASH ((id + 1))",
	"CREATE TABLE hp_0 PARTITION OF hp FOR VALUES WITH (modulus 2, remainder 0)", "ALTER TABLE hp REPLICA IDENTITY FULL", "ALTER TABLE hp_0 REPLICA IDENTITY FULL",
	"CREATE TABLE hp_1 PARTITION OF hp FOR VALUES WITH (modulus 2, remainder 1)", "ALTER TABLE hp_1 REPLICA IDENTITY FULL",
	"CREATE TABLE half (id int, k int, PRIMARY KEY (id, k)) PARTITION BY RANGE (k)",
	"CREATE TABLE half_a PARTITION OF half FOR VALUES FROM (0) TO (10)",
	"CREATE TABLE half_b PARTITION OF half FOR VALUES FROM (10) TO (20)",
	"INSERT INTO ref SELECT g FROM generate_series(1, 5) g",
	"INSERT INTO meas SELECT g, (ARRAY[1, 3, 4])[1 + g % 3], 'v' || g, 1 FROM generate_series(1, 20) g",
	"INSERT INTO ev VALUES (1, '2020-05-01', 'a'), (2, '2024-01-01', 'b')", "INSERT INTO hp SELECT g, 'h' FROM generate_series(1, 10) g",
	"INSERT INTO half VALUES (1, 1), (2, 15)", "CREATE SCHEMA other", "CREATE TABLE other.t (id int)",
}

// TestPsqlDescribePartitioned: psql's \d and \d+ of a partitioned table
// (a root, a middle level) print
// what PostgreSQL prints — its columns, "Partition key", indexes, check
// and foreign-key constraints, "Referenced by", publications, triggers
// and partitions (facts section 'C', psql_partdescribe.go). Before, each
// was refused 0A000 ("sidecar does not read its partition key and its
// partitions' bounds"). A search path that would print names otherwise
// is refused.
func TestPsqlDescribePartitioned(t *testing.T) {
	r := newRig(t, []string{"public.meas", "public.ev", "public.hp", "public.half", "public.ref", "public.back", "public.tg"}, partDescribeSetup)
	c := psqlRig(r)
	c.same(t, `\d meas`, `\d+ meas`, `\d meas_3`, `\d+ meas_3`, `\d ev`, `\d+ ev`, `\d hp`, `\d+ hp`, `\d half`, `\d+ half`,
		`\dt`, `\d`)
	// The tables around them: a table with a foreign key to a
	// partitioned table (its clones onto the partitions are not listed:
	// before, \d back listed one per partition, a different answer),
	// and partitions (their foreign keys and the ones referencing them
	// are their ancestors' too).
	// A table with a user trigger only: relhastriggers is true (before,
	// false: psql printed no "Triggers:" footer, a different answer).
	c.same(t, `\d tg`, `\d back`, `\d+ back`, `\d half_a`, `\d+ hp_0`)
	// On 14 a partition's triggers cloned from its partitioned table's
	// (here its foreign key's) are internal and not read: refused there.
	parts := c
	if serverVersionNum(t, r) < 150000 {
		parts = c.orRefused()
	}
	parts.same(t, `\d meas_1`, `\d+ meas_1`, `\d meas_3a`, `\d+ meas_3b`)
	// What stays refused: a partition with a trigger cloned from its
	// partitioned table's (on 14, before, answered without the
	// "Triggers:" footer: a different answer), a partitioned index, a
	// table referenced by a partitioned table's foreign key.
	c.refused(t, nil, `\d ev_2020`, `\d meas_pkey`, `\d ref`)
	// Under a search path naming another schema first: refused (the
	// definitions were printed under search_path public).
	got, err := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", "SET search_path = other, public", "-c", `\d meas`)
	if err == nil || psqlState(got) != "0A000" {
		t.Errorf(`\d meas under search_path other, public: want 0A000, got (%v)\n%s`, err, got)
	}
}
