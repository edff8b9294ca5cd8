package replication

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestReadPartitions: the copy reads a partition's bound and partition
// constraint (its ancestors' bounds included, a type off the path
// qualified as under search_path public, whatever the session's path),
// empty facts for a table that is not a partition, on every major's
// catalogs, and leaves the session's search_path as it was.
func TestReadPartitions(t *testing.T) {
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	exec := execer(t, conn)
	exec("CREATE SCHEMA hid", "CREATE TYPE hid.color AS ENUM ('r', 'g')",
		"CREATE TABLE meas (id int NOT NULL, k int NOT NULL, PRIMARY KEY (id, k)) PARTITION BY LIST (k)",
		"CREATE TABLE meas_3 PARTITION OF meas FOR VALUES IN (3, 4) PARTITION BY LIST (k)",
		"CREATE TABLE meas_3a PARTITION OF meas_3 FOR VALUES IN (3)",
		"CREATE TABLE col (id int, c hid.color, PRIMARY KEY (id, c)) PARTITION BY LIST (c)",
		"CREATE TABLE col_r PARTITION OF col FOR VALUES IN ('r')",
		"CREATE TABLE plain (id int PRIMARY KEY)",
		"SET search_path = hid, public")
	for table, want := range map[string]wal.PartitionFacts{
		"meas_3a": {Bound: "FOR VALUES IN (3)", Constraint: "((k IS NOT NULL) AND (k = ANY (ARRAY[3, 4])) AND (k IS NOT NULL) AND (k = 3))"},
		"col_r":   {Bound: "FOR VALUES IN ('r')", Constraint: "((c IS NOT NULL) AND (c = 'r'::hid.color))"},
		"plain":   {},
	} {
		if got := relationOf(t, conn, table).Facts.Partition; got == nil || *got != want {
			t.Errorf("%s: %+v, want %+v", table, got, want)
		}
	}
	var path string
	if err := conn.QueryRow(t.Context(), "SHOW search_path").Scan(&path); err != nil || path != "hid, public" {
		t.Errorf("search_path after the read: %q (%v)", path, err)
	}
}
