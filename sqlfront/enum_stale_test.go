package sqlfront_test

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestEnumRenamedLabelFlatPath: after ALTER TYPE … RENAME VALUE 'sad' TO
// 'blue' the mirror still holds 'sad' in rows not written since, where
// PostgreSQL prints 'blue'. Printing such a value — an enum column, a
// domain over it, an enum array, a cast to text; the direct path's point
// gets and ranges (stored bytes sent as they are, from the in-memory
// HEAD and from the trees), the general path, text and binary results —
// is refused 0A000, never the old label; rows holding current labels
// answer as PostgreSQL does; AS OF the version before the rename prints
// what PostgreSQL printed then. On 60c07d9 every stale statement printed
// 'sad'.
func TestEnumRenamedLabelFlatPath(t *testing.T) {
	setup := []string{
		`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`,
		`CREATE DOMAIN dmood AS mood`,
		`CREATE TABLE er (id int PRIMARY KEY, m mood, d dmood, a mood[], note text)`,
		`INSERT INTO er VALUES (1, 'ok', 'ok', '{ok,happy}', 'a'), (2, 'sad', 'happy', NULL, 'b'), (3, 'happy', 'sad', NULL, 'c'),
			(4, NULL, NULL, '{happy,NULL,sad}', 'd'), (5, 'happy', 'ok', '{}', 'e')`,
	}
	// The poll records the facts at HEAD's LSN: the version before it is
	// the first step's (the second changes no enum).
	r := newRig(t, []string{"public.er"}, setup, []string{`UPDATE er SET note = 'x' WHERE id = 5`}, []string{`UPDATE er SET note = 'y' WHERE id = 5`})
	ctx := context.Background()
	conns := connectBoth(t, r)
	pgc, sc := conns["postgresql"], conns["sidecar"]
	tree, err := pgconn.Connect(ctx, r.treeURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close(ctx)
	asOf := []string{
		"SELECT id, m, d, a FROM er%s ORDER BY id",
		"SELECT id, m FROM er%s WHERE id = 2",
		"SELECT id, d FROM er%s WHERE id = 3",
		"SELECT a FROM er%s WHERE id = 4",
		"SELECT id, m FROM er%s WHERE id < 4",
		"SELECT id, m, note FROM er%s WHERE note = 'b'",
	}
	before := map[string][2]*pgconn.Result{}
	for _, s := range asOf {
		q := strings.ReplaceAll(s, "%s", "")
		before[s] = [2]*pgconn.Result{pgc.ExecParams(ctx, q, nil, nil, nil, nil).Read(), pgc.ExecParams(ctx, q, nil, nil, nil, []int16{1}).Read()}
	}
	execSQL(t, r.pgURL, "ALTER TYPE mood RENAME VALUE 'sad' TO 'blue'")
	pollFacts(t, r)

	// AS OF the version before the rename: the labels then, 'sad' printed.
	for _, s := range asOf {
		q := strings.ReplaceAll(s, "%s", " AS OF '"+r.lsns[0]+"'")
		sameResult(t, q, sc.ExecParams(ctx, q, nil, nil, nil, nil).Read(), before[s][0])
		if !strings.Contains(s, "a FROM") && !strings.Contains(s, "*") {
			sameResult(t, q+" (binary)", sc.ExecParams(ctx, q, nil, nil, nil, []int16{1}).Read(), before[s][1])
		}
	}
	// At HEAD a stored 'sad' is PostgreSQL's 'blue': refused.
	stale := []string{
		"SELECT id, m FROM er WHERE id = 2", // the direct path's point get
		"SELECT * FROM er WHERE id = 3",
		"SELECT id, d FROM er WHERE id = 3",
		"SELECT a FROM er WHERE id = 4",
		"SELECT id, m FROM er WHERE id < 4", // the direct path's range
		"SELECT id, m FROM er WHERE id IN (1, 2)",
		"SELECT * FROM er ORDER BY id",
		"SELECT m FROM er",
		"SELECT id, m, note FROM er WHERE note = 'b'", // the general path
		"SELECT m::text FROM er WHERE id = 2",
		"SELECT d::text FROM er WHERE id = 3",
		"SELECT id FROM er WHERE m::text = 'sad'",
		"SELECT a::text FROM er WHERE id = 4",
	}
	for _, q := range stale {
		if w := pgc.ExecParams(ctx, q, nil, nil, nil, nil).Read(); w.Err != nil {
			t.Fatalf("PostgreSQL: %s: %v", q, w.Err)
		}
		for _, c := range []struct {
			name string
			conn *pgconn.PgConn
		}{{"", sc}, {" (trees)", tree}} {
			for _, f := range [][]int16{nil, {1}} {
				if len(f) > 0 && (strings.Contains(q, "a FROM") || strings.Contains(q, "*") || strings.Contains(q, "::text")) {
					continue // an enum array's binary form is not sent: not this test's
				}
				g := c.conn.ExecParams(ctx, q, nil, nil, nil, f).Read()
				if pgCode(g.Err) != "0A000" {
					t.Errorf("sidecar%s: %s (formats %v): %q %v, want 0A000 (PostgreSQL prints 'blue')", c.name, q, f, rowsText(g), g.Err)
				}
			}
		}
	}
	if _, err := sc.Exec(ctx, "SELECT id, m FROM er WHERE id = 2").ReadAll(); pgCode(err) != "0A000" {
		t.Errorf("sidecar: simple query SELECT id, m FROM er WHERE id = 2: %v, want 0A000", err)
	}
	for _, q := range []string{"COPY (SELECT m FROM er WHERE id = 2) TO STDOUT", "COPY er TO STDOUT", "COPY er (id, d) TO STDOUT"} {
		var out bytes.Buffer
		if _, err := sc.CopyTo(ctx, &out, q); pgCode(err) != "0A000" {
			t.Errorf("sidecar: %s: %q %v, want 0A000", q, out.String(), err)
		}
	}
	// Rows whose labels are current answer as PostgreSQL does.
	for _, q := range []string{
		"SELECT id, m, d, a FROM er WHERE id = 1",
		"SELECT id, m FROM er WHERE id = 5",
		"SELECT id, m FROM er WHERE id IN (1, 5)",
		"SELECT id, m, note FROM er WHERE note IN ('a', 'e') ORDER BY id",
		"SELECT id FROM er ORDER BY id",
		"SELECT count(m), count(a) FROM er",
		"SELECT id, m FROM er WHERE id = 2 AND false",
	} {
		want := pgc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if want.Err != nil {
			t.Fatalf("PostgreSQL: %s: %v", q, want.Err)
		}
		sameResult(t, q, sc.ExecParams(ctx, q, nil, nil, nil, nil).Read(), want)
		sameResult(t, q+" (trees)", tree.ExecParams(ctx, q, nil, nil, nil, nil).Read(), want)
		if !strings.Contains(q, " a ") && !strings.Contains(q, ", a") {
			sameResult(t, q+" (binary)", sc.ExecParams(ctx, q, nil, nil, nil, []int16{1}).Read(), pgc.ExecParams(ctx, q, nil, nil, nil, []int16{1}).Read())
		}
	}
}

// BenchmarkEnumPointGet is a prepared point get of a row with an enum
// column (the direct path, which checks the stored label against the
// version's labels) on sidecar and on PostgreSQL over the same rows:
// compare the two sub-benchmarks' ns/op in one run (-count ≥ 5,
// alternating, medians), before and after a change of the check.
func BenchmarkEnumPointGet(b *testing.B) {
	r := newRig(b, []string{"public.eb"}, []string{
		`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`,
		`CREATE TABLE eb (id int PRIMARY KEY, m mood, note text)`,
		`INSERT INTO eb SELECT g, (ARRAY['sad', 'ok', 'happy'])[g % 3 + 1]::mood, 'n' || g FROM generate_series(1, 10000) g`,
	})
	ctx := context.Background()
	for _, target := range []struct{ name, url string }{{"sidecar", r.sqlURL}, {"postgresql", r.pgURL}} {
		b.Run(target.name, func(b *testing.B) {
			c, err := pgconn.Connect(ctx, target.url)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close(ctx)
			if _, err := c.Prepare(ctx, "s", "SELECT id, m, note FROM eb WHERE id = $1", nil); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				res := c.ExecPrepared(ctx, "s", [][]byte{[]byte(strconv.Itoa(i%10000 + 1))}, nil, nil).Read()
				if res.Err != nil || len(res.Rows) != 1 {
					b.Fatalf("%v %d", res.Err, len(res.Rows))
				}
			}
		})
	}
}
