package history

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/wal"
)

// fkTables is the schema of TestSQLPatchOrderRandomForeignKeys: a chain
// parent ← child ← grandchild (CASCADE, then NO ACTION) and a tree whose
// parents have higher keys than their children (so key order is the
// wrong order, and no cycle can form). Foreign keys only: with no other
// constraint, the documented order must make every patch apply.
var fkTables = []struct {
	name, ddl string
	cols      [][2]string
}{
	{"public.p", `CREATE TABLE p (id int8 PRIMARY KEY, note text)`, [][2]string{{"id", "int8"}, {"note", "text"}}},
	{"public.c", `CREATE TABLE c (id int8 PRIMARY KEY, pid int8 NOT NULL REFERENCES p ON DELETE CASCADE, note text)`, [][2]string{{"id", "int8"}, {"pid", "int8"}, {"note", "text"}}},
	{"public.g", `CREATE TABLE g (id int8 PRIMARY KEY, cid int8 REFERENCES c, note text)`, [][2]string{{"id", "int8"}, {"cid", "int8"}, {"note", "text"}}},
	{"public.t", `CREATE TABLE t (id int8 PRIMARY KEY, up int8 REFERENCES t ON DELETE CASCADE, note text, CHECK (up > id))`, [][2]string{{"id", "int8"}, {"up", "int8"}, {"note", "text"}}},
}

// TestSQLPatchOrderRandomForeignKeys makes a random history on a real
// PostgreSQL (random inserts, deletes that may cascade or be refused,
// re-pointing updates; PostgreSQL decides what is valid), mirrors every
// committed state, and applies the patch between random pairs of versions
// to PostgreSQL holding the from version: every patch must apply and give
// the to version exactly. The seed is printed on failure.
func TestSQLPatchOrderRandomForeignKeys(t *testing.T) {
	rng := seeded(t)
	ctx := t.Context()
	conn, exec := newPGDB(t)
	f := historytest.New(t)
	svc := New(f.DB, f.Mirror)
	rels := map[string]*wal.Relation{}
	for i, tb := range fkTables {
		if err := exec(tb.ddl); err != nil {
			t.Fatal(err)
		}
		rels[tb.name] = historytest.Rel(uint32(i+1), "public", tb.name[len("public."):], 1, tb.cols...)
		f.CreateTable(rels[tb.name], nil)
	}
	fks, err := ForeignKeys(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	type state map[string]map[string][]*string // table → id → row
	read := func() state {
		out := state{}
		for _, tb := range fkTables {
			rows, err := conn.Query(ctx, "SELECT * FROM "+QuoteTable(tb.name), pgx.QueryResultFormats{pgx.TextFormatCode})
			if err != nil {
				t.Fatal(err)
			}
			out[tb.name] = map[string][]*string{}
			for rows.Next() {
				var r []*string
				for _, raw := range rows.RawValues() {
					if raw == nil {
						r = append(r, nil)
					} else {
						r = append(r, historytest.S(string(raw)))
					}
				}
				out[tb.name][*r[0]] = r
			}
			if rows.Err() != nil {
				t.Fatal(rows.Err())
			}
		}
		return out
	}
	same := func(a, b state) bool {
		return maps.EqualFunc(a, b, func(x, y map[string][]*string) bool {
			return maps.EqualFunc(x, y, func(r, s []*string) bool { return slices.EqualFunc(r, s, sameValue) })
		})
	}

	// The history: random transactions on PostgreSQL, each statement in
	// a savepoint (a refused one is rolled back), each commit mirrored as
	// the difference of the states before and after it.
	const ids = 30
	id := func() int { return 1 + rng.IntN(ids) }
	stmt := func() (string, []any) {
		note := fmt.Sprintf("n%d", rng.IntN(1000))
		switch rng.IntN(11) {
		case 0, 1:
			return `INSERT INTO p VALUES ($1, $2)`, []any{id(), note}
		case 2, 3:
			return `INSERT INTO c VALUES ($1, $2, $3)`, []any{id(), id(), note}
		case 4:
			return `INSERT INTO g VALUES ($1, $2, $3)`, []any{id(), id(), note}
		case 5, 6:
			x := id()
			return `INSERT INTO t VALUES ($1, $2, $3)`, []any{x, []any{nil, x + 1 + rng.IntN(5)}[rng.IntN(2)], note}
		case 7:
			return `DELETE FROM ` + []string{"p", "c", "g", "t"}[rng.IntN(4)] + ` WHERE id = $1`, []any{id()}
		case 8:
			return `UPDATE c SET pid = $2, note = $3 WHERE id = $1`, []any{id(), id(), note}
		case 9:
			return `UPDATE g SET cid = $2 WHERE id = $1`, []any{id(), []any{nil, id()}[rng.IntN(2)]}
		default:
			x := id()
			return `UPDATE t SET up = $2 WHERE id = $1`, []any{x, x + 1 + rng.IntN(5)}
		}
	}
	prev := read()
	var versions []string
	var states []state
	for range 30 {
		if err := exec("BEGIN"); err != nil {
			t.Fatal(err)
		}
		for range 1 + rng.IntN(8) {
			sql, args := stmt()
			if err := exec("SAVEPOINT s"); err != nil {
				t.Fatal(err)
			}
			if exec(sql, args...) != nil {
				if err := exec("ROLLBACK TO SAVEPOINT s"); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := exec("COMMIT"); err != nil {
			t.Fatal(err)
		}
		now := read()
		if same(now, prev) {
			// Every statement rolled back: the mirror makes no version of
			// a transaction that changes no row.
			continue
		}
		v := f.Commit(func(tx *historytest.Tx) {
			for _, tb := range fkTables {
				for k, r := range now[tb.name] {
					if old, ok := prev[tb.name][k]; !ok || !slices.EqualFunc(old, r, sameValue) {
						tx.Upsert(rels[tb.name], r)
					}
				}
				for k := range prev[tb.name] {
					if _, ok := now[tb.name][k]; !ok {
						tx.Delete(rels[tb.name], k)
					}
				}
			}
		})
		versions, states, prev = append(versions, v.EndLSN.String()), append(states, now), now
	}

	load := func(s state) {
		t.Helper()
		// Foreign keys off while loading (the test runs as a superuser).
		for _, q := range []string{"BEGIN", "SET LOCAL session_replication_role = replica", "DELETE FROM g", "DELETE FROM c", "DELETE FROM p", "DELETE FROM t"} {
			if err := exec(q); err != nil {
				t.Fatal(err)
			}
		}
		for _, tb := range fkTables {
			for _, r := range s[tb.name] {
				ph := make([]string, len(r))
				args := make([]any, len(r))
				for i, v := range r {
					ph[i] = fmt.Sprintf("$%d::text::%s", i+1, tb.cols[i][1])
					if v != nil {
						args[i] = *v
					}
				}
				if err := exec("INSERT INTO "+QuoteTable(tb.name)+" VALUES ("+strings.Join(ph, ", ")+")", args...); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := exec("COMMIT"); err != nil {
			t.Fatal(err)
		}
	}
	rig := &patchRig{t: t, conn: conn, svc: svc, versions: versions, opts: SQLOptions{ForeignKeys: fks},
		load:    func(i int) { load(states[i]) },
		matches: func(j int) bool { return same(read(), states[j]) }}
	naiveFailed := 0
	// At least 20 random pairs, and more (up to 200) until one shows the
	// naive key order failing: a short history may need more draws.
	pairs := 0
	for pairs < 20 || (naiveFailed == 0 && pairs < 200) {
		pairs++
		if rig.check(rng.IntN(len(versions)), rng.IntN(len(versions))) {
			naiveFailed++
		}
	}
	t.Logf("%d random pairs applied; key order failed on %d", pairs, naiveFailed)
	if naiveFailed == 0 {
		t.Fatal("key order never failed: the history does not exercise the order")
	}
}
