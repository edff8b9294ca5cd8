package sqlfront_test

import (
	"testing"
	"time"
)

// partitionSetup is a list-partitioned root with a middle level, a
// range-partitioned one with a DEFAULT partition and a hash-partitioned
// one: the bounds and partition constraints of each kind.
var partitionSetup = []string{
	"CREATE SCHEMA other", "CREATE TYPE other.mood AS ENUM ('a')",
	"CREATE TABLE meas (id int NOT NULL, k int NOT NULL, v text, PRIMARY KEY (id, k)) PARTITION BY LIST (k)",
	"CREATE TABLE meas_1 PARTITION OF meas FOR VALUES IN (1)",
	"CREATE TABLE meas_3 PARTITION OF meas FOR VALUES IN (3, 4) PARTITION BY LIST (k)",
	"CREATE TABLE meas_3a PARTITION OF meas_3 FOR VALUES IN (3)",
	"CREATE TABLE meas_3b PARTITION OF meas_3 FOR VALUES IN (4)",
	"CREATE TABLE ev (id int, at date, note text, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)",
	"CREATE TABLE ev_2020 PARTITION OF ev FOR VALUES FROM ('2020-01-01') TO ('2021-01-01')",
	"CREATE TABLE ev_rest PARTITION OF ev DEFAULT",
	"CREATE INDEX ev_note ON ev (note)",
	"CREATE TABLE hp (id int PRIMARY KEY, v text) PARTITION BY HASH (id)",
	"CREATE TABLE hp_0 PARTITION OF hp FOR VALUES WITH (modulus 2, remainder 0)",
	"CREATE TABLE hp_1 PARTITION OF hp FOR VALUES WITH (modulus 2, remainder 1)",
	"INSERT INTO meas SELECT g, (ARRAY[1, 3, 4])[1 + g % 3], 'v' FROM generate_series(1, 20) g",
	"INSERT INTO ev VALUES (1, '2020-05-01', 'a'), (2, '2024-01-01', 'b')", "INSERT INTO hp SELECT g, 'h' FROM generate_series(1, 10) g",
}

// partitionCommands are psql's commands that print a partition's footer
// and list the partitioned relations.
var partitionCommands = []string{`\d meas_1`, `\d+ meas_1`, `\d meas_3a`, `\d+ meas_3b`, `\d ev_2020`, `\d+ ev_2020`, `\d+ ev_rest`,
	`\d hp_0`, `\d+ hp_1`, `\dP`, `\dPn`, `\dPt`, `\dPtn`, `\dPi`, `\dPin`}

// TestPsqlPartitions: psql's \d and \d+ of a partition print "Partition
// of: parent FOR VALUES …" and "Partition constraint: …" as PostgreSQL
// (from the facts sections 'o' and 'r'), and \dP, \dPt, \dPi and their n
// forms list the partitioned tables and indexes as PostgreSQL. Before,
// every one was refused 0A000. \dP+ reads sizes and stays refused.
func TestPsqlPartitions(t *testing.T) {
	r := newRig(t, []string{"public.meas", "public.ev", "public.hp"}, partitionSetup)
	for _, cmd := range partitionCommands {
		psqlSame(t, r.sqlURL, r.pgURL, cmd, "-c", cmd) // pgcatalog_database_test.go
	}
	// A partitioned index is described by PostgreSQL: refused, not "Did
	// not find any relation named" (which psql printed before).
	psqlRig(r).refused(t, nil, `\d ev_note`, `\d+ ev_note`, `\d meas_pkey`, `\d public.hp_pkey`)
	// Under a search path naming a schema that holds a type before public
	// (the constraint was read under public: its types could print
	// otherwise), and with sizes: refused.
	for _, args := range [][]string{{"-c", "SET search_path = other, public", "-c", `\d+ meas_1`}, {"-c", `\dP+`}} {
		got, err := psql(t, r.sqlURL, append([]string{"-v", "VERBOSITY=verbose"}, args...)...)
		if err == nil || psqlState(got) != "0A000" {
			t.Errorf("%s: want 0A000, got (%v)\n%s", args, err, got)
		}
	}
}

// eventuallyPsqlSame runs the psql command cmd on sidecar until it
// prints what PostgreSQL prints now, for at most two minutes (the
// catalog poll, a new partition's copy).
func eventuallyPsqlSame(t *testing.T, sqlURL, pgURL, what, cmd string) {
	t.Helper()
	want, werr := psql(t, pgURL, "-c", cmd)
	if werr != nil {
		t.Fatalf("%s%s on PostgreSQL: %v\n%s", what, cmd, werr, want)
	}
	var got string
	var err error
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if got, err = psql(t, sqlURL, "-v", "VERBOSITY=verbose", "-c", cmd); err == nil && got == want {
			return
		}
	}
	t.Fatalf("%s%s after 2 minutes: (%v)\n%s\nPostgreSQL:\n%s", what, cmd, err, got, want)
}

// TestPsqlPartitionsFollowDDL: the daemon's catalog poll reads a
// table's parents (section 'o') and its partition bound (section 'r')
// again, so psql's \d, \d+ and \dP answer as PostgreSQL after ATTACH
// PARTITION, DETACH PARTITION, a partition created on a followed root,
// ALTER TABLE … INHERIT and NO INHERIT (within a poll, and a copy of a
// new partition).
func TestPsqlPartitionsFollowDDL(t *testing.T) {
	pgURL, sqlURL := liveDaemon(t, []string{"public.meas", "public.kid"}, []string{
		"CREATE TABLE meas (id int NOT NULL, k int NOT NULL, v text, PRIMARY KEY (id, k)) PARTITION BY LIST (k)",
		"CREATE TABLE meas_1 PARTITION OF meas FOR VALUES IN (1)",
		"CREATE TABLE meas_2 PARTITION OF meas FOR VALUES IN (2)",
		"INSERT INTO meas SELECT g, 1 + g % 2, 'v' FROM generate_series(1, 10) g",
		"CREATE TABLE par (id int)", "CREATE TABLE kid (id int PRIMARY KEY)",
	})
	for _, cmd := range []string{`\d+ meas_1`, `\d meas_2`, `\d kid`, `\dPn`} {
		eventuallyPsqlSame(t, sqlURL, pgURL, "after the copy: ", cmd)
	}
	// meas_1's bound changes (detached, attached again with another),
	// meas_2 leaves, meas_5 is created, kid inherits from par.
	execSQL(t, pgURL, "ALTER TABLE meas DETACH PARTITION meas_1", "ALTER TABLE meas ATTACH PARTITION meas_1 FOR VALUES IN (1, 7)",
		"ALTER TABLE meas DETACH PARTITION meas_2", "CREATE TABLE meas_5 PARTITION OF meas FOR VALUES IN (5)", "INSERT INTO meas VALUES (100, 5, 'n')",
		"ALTER TABLE kid INHERIT par")
	for _, cmd := range []string{`\d+ meas_1`, `\d meas_5`, `\d+ meas_5`, `\d kid`, `\dPn`} {
		eventuallyPsqlSame(t, sqlURL, pgURL, "after ATTACH, DETACH, CREATE and INHERIT: ", cmd)
	}
	psqlSame(t, sqlURL, pgURL, `\d meas_2 (detached)`, "-c", `\d meas_2`)
	execSQL(t, pgURL, "ALTER TABLE kid NO INHERIT par")
	eventuallyPsqlSame(t, sqlURL, pgURL, "after NO INHERIT: ", `\d kid`)
}
