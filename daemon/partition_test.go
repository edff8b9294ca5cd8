package daemon

import (
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
)

// Issue 21: following a partitioned table looped on "copying tables again
// under a fresh snapshot" and never streamed: the root is the followed
// table, but the copy (the publication does not publish via the root)
// reports its leaf partitions copied, so the root never counted as copied
// and every start copied it again and failed. And the leaves, not being
// configured names, would have had their streamed changes ignored.
func TestFollowPartitionedTable(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url,
		"CREATE TABLE meas (id int, k int, v text, PRIMARY KEY (id, k)) PARTITION BY LIST (k)",
		"CREATE TABLE meas_1 PARTITION OF meas FOR VALUES IN (1)",
		"CREATE TABLE meas_2 PARTITION OF meas FOR VALUES IN (2)",
		"INSERT INTO meas SELECT g, 1 + g % 2, 'v' || g FROM generate_series(1, 100) g",
		"CREATE TABLE plain (id int PRIMARY KEY)", "INSERT INTO plain VALUES (1)")
	cfg := testConfig(t, url, "public.meas", "public.plain")
	var logs syncBuilder
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(logs.String())
		}
	})
	r := start(t, cfg, &logs)
	r.waitDurable(t, marker(t, url, "UPDATE meas SET v = 'x' WHERE id = 3"))
	execSQL(t, url,
		"INSERT INTO meas VALUES (1000, 1, 'new1'), (1001, 2, 'new2')",
		"UPDATE meas SET k = 2 WHERE id = 5", // moves between partitions
		"DELETE FROM meas WHERE id = 8")
	st := r.waitDurable(t, marker(t, url, "UPDATE meas SET v = 'y' WHERE id = 4"))
	var names []string
	for _, tb := range st.Tables {
		names = append(names, tb.Name+":"+tb.State)
	}
	if want := []string{"public.meas_1:ready", "public.meas_2:ready", "public.plain:ready"}; !slices.Equal(names, want) {
		t.Errorf("tables %v, want %v", names, want)
	}
	if n := strings.Count(logs.String(), "copying tables again under a fresh snapshot"); n != 0 {
		t.Errorf("%d resyncs after the initial copy", n)
	}
	check := func(when string) {
		for _, leaf := range []string{"meas_1", "meas_2"} {
			_, got := mirrortest.MirrorRows(t, cfg.DataDir, "public."+leaf)
			if want := mirrortest.PGRows(t, url, leaf); !slices.Equal(got, want) {
				t.Errorf("%s: %s: mirror %d rows, PostgreSQL %d; they differ", when, leaf, len(got), len(want))
			}
		}
	}
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	check("after streaming")

	// A restart resumes: no copy again, changes while down applied.
	execSQL(t, url, "UPDATE meas SET v = 'down' WHERE id < 20")
	r2 := start(t, cfg, &logs)
	r2.waitDurable(t, marker(t, url, "UPDATE meas SET v = 'z' WHERE id = 6"))
	if err := r2.stop(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "copying tables again under a fresh snapshot"); n != 0 {
		t.Errorf("%d resyncs after a restart", n)
	}
	check("after a restart")
}
