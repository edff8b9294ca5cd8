package daemon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
)

// answer is a statement's result as text rows, or its SQLSTATE.
type answer struct {
	rows []string
	code string
	msg  string
}

// ask runs sql over the simple protocol on a new connection to url.
func ask(ctx context.Context, url, sql string) answer {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return answer{code: "connect", msg: err.Error()}
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return answerErr(err)
	}
	var out []string
	for rows.Next() {
		vals := rows.RawValues()
		cells := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				cells[i] = "NULL"
			} else {
				cells[i] = string(v)
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	if err := rows.Err(); err != nil {
		return answerErr(err)
	}
	return answer{rows: out}
}

func answerErr(err error) answer {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return answer{code: pe.Code, msg: pe.Message}
	}
	return answer{code: "error", msg: err.Error()}
}

// Issue 21 item 4: `FROM root` over a followed partitioned table answers
// as PostgreSQL does — the union of its leaves in the root's column
// order, leaves with another column order, a dropped column and a second
// partitioning level included; FROM ONLY root reads nothing — on the
// flat path and on sql/exec, and AS OF a version. A partition created or
// attached while the daemon runs is copied and followed with no streamed
// row lost; a detached one leaves the root. Before, FROM root was
// refused (0A000) and a new partition's rows were ignored until a
// restart.
func TestPartitionedRootReadsItsLeaves(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url,
		"CREATE TABLE meas (id int NOT NULL, k int NOT NULL, v text, n numeric, PRIMARY KEY (id, k)) PARTITION BY LIST (k)",
		"CREATE TABLE meas_1 PARTITION OF meas FOR VALUES IN (1)",
		// Another column order and a dropped column: mapped by name.
		"CREATE TABLE meas_2 (dropme int, n numeric, v text, k int NOT NULL, id int NOT NULL, PRIMARY KEY (id, k))",
		"ALTER TABLE meas_2 DROP COLUMN dropme",
		"ALTER TABLE meas ATTACH PARTITION meas_2 FOR VALUES IN (2)",
		// A second level.
		"CREATE TABLE meas_3 PARTITION OF meas FOR VALUES IN (3, 4) PARTITION BY LIST (k)",
		"CREATE TABLE meas_3a PARTITION OF meas_3 FOR VALUES IN (3)",
		"CREATE TABLE meas_3b PARTITION OF meas_3 FOR VALUES IN (4)",
		"INSERT INTO meas SELECT g, 1 + g % 4, 'v' || g, g * 1.5 FROM generate_series(1, 200) g",
		"CREATE TABLE plain (id int PRIMARY KEY, name text)",
		"INSERT INTO plain SELECT g, 'p' || g FROM generate_series(1, 50) g")
	sc, r, dataDir := followWithSQL(t, url, []string{"public.meas", "public.plain"})
	ctx := t.Context()

	// The catalog poll records the root within a few seconds.
	var last answer
	daemontest.Eventually(t, "FROM meas answered", 60*time.Second, func() bool {
		last = ask(ctx, sc, "SELECT count(*) FROM meas")
		return last.code == ""
	}, func() string { return fmt.Sprintf("%+v", last) })

	queries := []string{
		"SELECT * FROM meas ORDER BY id",
		"SELECT id, k, v, n FROM meas WHERE k = 2 AND id < 40 ORDER BY id",
		"SELECT k, count(*), sum(n), min(id), max(id) FROM meas GROUP BY k ORDER BY k",
		"SELECT count(*), sum(id) FROM meas WHERE v LIKE 'v1%'",
		"SELECT * FROM ONLY meas",
		"SELECT count(*) FROM ONLY meas",
		"SELECT m.id, m.k, p.name FROM meas AS m JOIN plain p ON p.id = m.id WHERE m.n > 10 ORDER BY m.id",
		"SELECT m.id, p.name FROM plain p LEFT JOIN meas m ON m.id = p.id AND m.k = 3 ORDER BY p.id",
		// sql/exec (the flat planner refuses these shapes).
		"SELECT count(*), sum(n) FROM (SELECT * FROM meas WHERE k <> 1) s",
		"WITH x AS (SELECT k, id FROM meas) SELECT k, count(*) FROM x GROUP BY k ORDER BY k",
		"SELECT k FROM meas WHERE id < 5 UNION ALL SELECT id FROM plain WHERE id < 3 ORDER BY 1",
		"SELECT count(*) FROM meas m WHERE EXISTS (SELECT 1 FROM plain p WHERE p.id = m.id)",
		"SELECT * FROM meas_2 ORDER BY id LIMIT 5",
	}
	compare := func(when string, qs []string) {
		t.Helper()
		for _, q := range qs {
			want, got := ask(ctx, url, q), ask(ctx, sc, q)
			if want.code != "" {
				t.Fatalf("%s: PostgreSQL refused %q: %+v", when, q, want)
			}
			if got.code != "" || !slices.Equal(got.rows, want.rows) {
				t.Errorf("%s: %q:\n sidecar    %d rows %v %s %s\n postgresql %d rows %v", when, q, len(got.rows), firstRows(got.rows), got.code, got.msg, len(want.rows), firstRows(want.rows))
			}
		}
	}
	compare("after the copy", queries)

	// ONLY over a root on sql/exec: answered as PostgreSQL or refused.
	for _, q := range []string{"SELECT count(*) FROM (SELECT * FROM ONLY meas) s"} {
		want, got := ask(ctx, url, q), ask(ctx, sc, q)
		if got.code != "0A000" && !slices.Equal(got.rows, want.rows) {
			t.Errorf("%q: sidecar %+v, PostgreSQL %+v", q, got, want)
		}
	}

	// AS OF the version before more changes: the union as it was.
	before := ask(ctx, url, "SELECT count(*), sum(n) FROM meas").rows
	st := r.status(t)
	asOf := st.DurableLSN
	execSQL(t, url, "DELETE FROM meas WHERE id % 10 = 0", "UPDATE meas SET n = n + 1 WHERE k = 3")

	// Live: a partition created, one attached, one detached.
	execSQL(t, url, "CREATE TABLE meas_5 PARTITION OF meas FOR VALUES IN (5)")
	// One transaction each, on one connection (a connection each was 150
	// backends started for this test).
	var inserts []string
	for i := range 100 {
		inserts = append(inserts, fmt.Sprintf("INSERT INTO meas VALUES (%d, 5, 'five', %d)", 1000+i, i))
	}
	execSQL(t, url, inserts...)
	execSQL(t, url,
		"CREATE TABLE meas_6 (id int NOT NULL, k int NOT NULL, v text, n numeric, PRIMARY KEY (id, k))",
		"INSERT INTO meas_6 SELECT g, 6, 'six', g FROM generate_series(2000, 2049) g",
		"ALTER TABLE meas ATTACH PARTITION meas_6 FOR VALUES IN (6)")
	inserts = inserts[:0]
	for i := range 50 { // right after the attach
		inserts = append(inserts, fmt.Sprintf("INSERT INTO meas VALUES (%d, 6, 'after', %d)", 3000+i, i))
	}
	execSQL(t, url, inserts...)
	execSQL(t, url, "ALTER TABLE meas DETACH PARTITION meas_1", "UPDATE meas SET v = 'upd' WHERE k = 5 AND id < 1010")
	r.waitDurable(t, marker(t, url, "UPDATE plain SET name = 'm2' WHERE id = 2"))
	daemontest.Eventually(t, "FROM meas with the new partitions", 120*time.Second, func() bool {
		want := ask(ctx, url, "SELECT count(*), sum(id) FROM meas")
		last = ask(ctx, sc, "SELECT count(*), sum(id) FROM meas")
		return last.code == "" && slices.Equal(last.rows, want.rows)
	}, func() string {
		q := "SELECT k, count(*), min(id), max(id) FROM meas GROUP BY k ORDER BY k"
		return fmt.Sprintf("%+v\nsidecar    %v\npostgresql %v", last, ask(ctx, sc, q), ask(ctx, url, q))
	})
	compare("after create, attach, detach", queries)

	if got := ask(ctx, sc, "SELECT count(*), sum(n) FROM meas AS OF '"+asOf+"'"); got.code != "" || !slices.Equal(got.rows, before) {
		t.Errorf("AS OF %s: sidecar %+v, PostgreSQL before the changes %v", asOf, got, before)
	}
	// The same through a CTE, which the flat planner refuses: sql/exec
	// reads the root's leaves at the reference's version, not at HEAD.
	if got := ask(ctx, sc, "WITH m AS (SELECT n FROM meas AS OF '"+asOf+"') SELECT count(*), sum(n) FROM m"); got.code != "0A000" && (got.code != "" || !slices.Equal(got.rows, before)) {
		t.Errorf("AS OF %s in a CTE: sidecar %+v, PostgreSQL before the changes %v", asOf, got, before)
	} else {
		t.Logf("AS OF in a CTE: %+v", got)
	}

	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	for _, leaf := range []string{"meas_2", "meas_3a", "meas_5", "meas_6"} {
		_, got := mirrortest.MirrorRows(t, dataDir, "public."+leaf)
		if want := mirrortest.PGRows(t, url, leaf); !slices.Equal(got, want) {
			t.Errorf("%s: mirror %d rows, PostgreSQL %d; they differ", leaf, len(got), len(want))
		}
	}
}

func firstRows(rows []string) []string {
	if len(rows) > 4 {
		return rows[:4]
	}
	return rows
}

// followWithSQL starts a daemon following tables of url (public.plain
// among them, with a row id 1) with its SQL port on a free address, waits
// until a marker update of plain is durable, and returns the SQL port's
// URL, the running daemon and its data directory; its log is printed
// when the test fails.
func followWithSQL(t *testing.T, url string, tables []string) (sqlURL string, r *running, dataDir string) {
	t.Helper()
	addr := daemontest.FreeAddr(t)
	cfg := daemontest.Config(t, url, tables, "sql:\n  listen: "+addr)
	var logs syncBuilder
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(logs.String())
		}
	})
	r = start(t, cfg, &logs)
	r.waitDurable(t, marker(t, url, "UPDATE plain SET name = 'm' WHERE id = 1"))
	return "postgres://sidecar@" + addr + "/sidecar?sslmode=disable", r, cfg.DataDir
}
