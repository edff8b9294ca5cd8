package daemon

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// TestPartitionedMidLevel (issue 21): a partition that is itself
// partitioned (meas → meas_3 → meas_3a, meas_3b, meas_3c → meas_3c1 …)
// under a followed root answers FROM it as PostgreSQL does — its leaves
// at every level below it, nothing for ONLY — where before it answered
// 42P01; the catalog's rows for it (pg_class, pg_inherits, psql's \d)
// are PostgreSQL's or refused with 0A000; a mid level detached from the
// root is refused (its leaves are no longer followed), not answered from
// leaves that no longer receive changes.
func TestPartitionedMidLevel(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url,
		"CREATE TABLE meas (id int NOT NULL, k int NOT NULL, v text, n numeric, PRIMARY KEY (id, k)) PARTITION BY LIST (k)",
		"CREATE TABLE meas_1 PARTITION OF meas FOR VALUES IN (1)",
		"CREATE TABLE meas_3 PARTITION OF meas FOR VALUES IN (3, 4, 5) PARTITION BY LIST (k)",
		"CREATE TABLE meas_3a PARTITION OF meas_3 FOR VALUES IN (3)",
		// Another column order: mapped by name to the mid level's order.
		"CREATE TABLE meas_3b (n numeric, v text, k int NOT NULL, id int NOT NULL, PRIMARY KEY (id, k))",
		"ALTER TABLE meas_3 ATTACH PARTITION meas_3b FOR VALUES IN (4)",
		// A third level.
		"CREATE TABLE meas_3c PARTITION OF meas_3 FOR VALUES IN (5) PARTITION BY RANGE (id)",
		"CREATE TABLE meas_3c1 PARTITION OF meas_3c FOR VALUES FROM (MINVALUE) TO (100)",
		"CREATE TABLE meas_3c2 PARTITION OF meas_3c FOR VALUES FROM (100) TO (MAXVALUE)",
		// A partitioned partition with no partitions: no rows.
		"CREATE TABLE meas_6 PARTITION OF meas FOR VALUES IN (6) PARTITION BY LIST (k)",
		"INSERT INTO meas SELECT g, (ARRAY[1, 3, 4, 5])[1 + g % 4], 'v' || g, g * 1.5 FROM generate_series(1, 200) g",
		"CREATE TABLE plain (id int PRIMARY KEY, name text)",
		"INSERT INTO plain SELECT g, 'p' || g FROM generate_series(1, 50) g")
	sc, r, _ := followWithSQL(t, url, []string{"public.meas", "public.plain"})
	ctx := t.Context()

	var last answer
	daemontest.Eventually(t, "FROM meas_3 answered", 60*time.Second, func() bool {
		last = ask(ctx, sc, "SELECT count(*) FROM meas_3")
		return last.code == ""
	}, func() string { return fmt.Sprintf("%+v", last) })

	queries := []string{
		"SELECT * FROM meas_3 ORDER BY id",
		"SELECT k, count(*), sum(n), min(id), max(id) FROM meas_3 GROUP BY k ORDER BY k",
		"SELECT id, v FROM meas_3 WHERE k = 4 AND id < 60 ORDER BY id",
		"SELECT * FROM meas_3c ORDER BY id",
		"SELECT count(*), sum(id) FROM public.meas_3c WHERE id >= 100",
		"SELECT * FROM ONLY meas_3",
		"SELECT count(*) FROM ONLY meas_3c",
		"SELECT * FROM meas_6",
		"SELECT count(*) FROM meas_6",
		"SELECT m.id, p.name FROM meas_3 m JOIN plain p ON p.id = m.id ORDER BY m.id",
		// sql/exec (the flat planner refuses these shapes).
		"WITH x AS (SELECT k, id FROM meas_3) SELECT k, count(*) FROM x GROUP BY k ORDER BY k",
		"SELECT count(*), sum(n) FROM (SELECT * FROM meas_3c WHERE id <> 7) s",
		"SELECT k FROM meas_3 WHERE id < 9 UNION ALL SELECT id FROM meas_6 ORDER BY 1",
		// The root and a leaf as before.
		"SELECT k, count(*) FROM meas GROUP BY k ORDER BY k",
		"SELECT count(*) FROM meas_3c1",
	}
	compare := func(when string) {
		t.Helper()
		for _, q := range queries {
			want, got := ask(ctx, url, q), ask(ctx, sc, q)
			if want.code != "" {
				t.Fatalf("%s: PostgreSQL refused %q: %+v", when, q, want)
			}
			if got.code != "" || !slices.Equal(got.rows, want.rows) {
				t.Errorf("%s: %q:\n sidecar    %d rows %v %s %s\n postgresql %d rows %v", when, q, len(got.rows), firstRows(got.rows), got.code, got.msg, len(want.rows), firstRows(want.rows))
			}
		}
	}
	compare("after the copy")

	// The catalog: a lookup by name is PostgreSQL's answer or 0A000. The
	// catalog does not list partitioned tables (the root's gap as much
	// as a mid level's): those differences are logged, not asserted.
	for _, c := range []struct {
		q      string
		assert bool
	}{
		{"SELECT 'meas_3'::regclass::text", true},
		{"SELECT 'public.meas_3c'::regclass::text", true},
		{"SELECT 'meas'::regclass::text", true},
		{"SELECT relname, relkind, relispartition FROM pg_class WHERE relname IN ('meas', 'meas_3', 'meas_3c', 'meas_6') ORDER BY 1", false},
		{"SELECT inhrelid::regclass::text, inhparent::regclass::text FROM pg_inherits ORDER BY 1", false},
	} {
		want, got := ask(ctx, url, c.q), ask(ctx, sc, c.q)
		switch {
		case got.code == "0A000":
			t.Logf("%q refused: %s", c.q, got.msg)
		case got.code != want.code || !slices.Equal(got.rows, want.rows):
			if c.assert {
				t.Errorf("catalog %q:\n sidecar    %v %s %s\n postgresql %v %s", c.q, got.rows, got.code, got.msg, want.rows, want.code)
			} else {
				t.Logf("catalog %q (not listed yet):\n sidecar    %v %s\n postgresql %v", c.q, got.rows, got.code, want.rows)
			}
		}
	}
	if psql, err := exec.LookPath("psql"); err == nil {
		for _, cmd := range []string{`\d meas_3`, `\d+ meas_3`, `\d meas_3c`, `\d meas`} {
			run := func(u string) (string, error) {
				out, err := exec.Command(psql, "-X", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose", "-d", u, "-c", cmd).CombinedOutput()
				return string(out), err
			}
			want, werr := run(url)
			got, gerr := run(sc)
			switch {
			case werr != nil:
				t.Fatalf("%s on PostgreSQL: %v\n%s", cmd, werr, want)
			case gerr != nil && strings.Contains(got, "0A000"):
				t.Logf("%s refused: %s", cmd, strings.TrimSpace(got))
			case gerr != nil || got != want:
				t.Errorf("psql %s: (%v)\n%s\nPostgreSQL:\n%s", cmd, gerr, got, want)
			}
		}
	}

	// Changes go on landing in the mid level's leaves.
	execSQL(t, url, "DELETE FROM meas WHERE id % 10 = 0", "UPDATE meas SET n = n + 1 WHERE k = 5",
		"INSERT INTO meas_3 SELECT g, 4, 'new', g FROM generate_series(1000, 1049) g")
	r.waitDurable(t, marker(t, url, "UPDATE plain SET name = 'm2' WHERE id = 2"))
	daemontest.Eventually(t, "FROM meas_3 after the changes", 60*time.Second, func() bool {
		want := ask(ctx, url, "SELECT count(*), sum(n) FROM meas_3")
		last = ask(ctx, sc, "SELECT count(*), sum(n) FROM meas_3")
		return last.code == "" && slices.Equal(last.rows, want.rows)
	}, func() string { return fmt.Sprintf("%+v", last) })
	compare("after changes")

	// Detached from the root, meas_3 is no longer followed: refused, not
	// answered from leaves that no longer receive changes.
	execSQL(t, url, "ALTER TABLE meas DETACH PARTITION meas_3", "INSERT INTO meas_3 VALUES (5000, 3, 'after', 1)")
	daemontest.Eventually(t, "FROM meas_3 refused once detached", 60*time.Second, func() bool {
		last = ask(ctx, sc, "SELECT count(*) FROM meas_3")
		return last.code == "0A000" || last.code == "42P01"
	}, func() string { return fmt.Sprintf("%+v", last) })
	if last.code == "0A000" {
		// The same refusal on sql/exec's path (a regclass cast sends the
		// statement there): its binder said 42P01 "relation does not
		// exist" for a relation PostgreSQL has.
		if got := ask(ctx, sc, "SELECT 'meas_3'::regclass::text, count(*) FROM meas_3 GROUP BY 1"); got.code != "0A000" {
			t.Errorf("a regclass cast over meas_3 once detached: %+v (want 0A000 as FROM meas_3 alone)", got)
		}
	}
	if got := ask(ctx, sc, "SELECT count(*) FROM meas_3c"); got.code != "0A000" && got.code != "42P01" {
		t.Errorf("FROM meas_3c once detached: %+v", got)
	}
	want, got := ask(ctx, url, "SELECT k, count(*) FROM meas GROUP BY k ORDER BY k"), ask(ctx, sc, "SELECT k, count(*) FROM meas GROUP BY k ORDER BY k")
	daemontest.Eventually(t, "FROM meas without meas_3", 60*time.Second, func() bool {
		got = ask(ctx, sc, "SELECT k, count(*) FROM meas GROUP BY k ORDER BY k")
		return got.code == "" && slices.Equal(got.rows, want.rows)
	}, func() string { return fmt.Sprintf("sidecar %+v, PostgreSQL %+v", got, want) })
}
