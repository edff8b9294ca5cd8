package history

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/wal"
)

// hostile values: each must arrive in PostgreSQL as itself.
var hostile = []string{
	`'); DROP TABLE x; --`,
	`a\b`, `\'`, `''`, `"`, "line\nbreak\ttab", "ünï©ødé ✓", "", " ", `E'\x41'`, `$$`, `$q$ $q$`, "--", "/*", `\\`,
}

func hostileValue(rng *rand.Rand, kind string) *string {
	if rng.IntN(6) == 0 {
		return nil
	}
	switch kind {
	case "numeric":
		return historytest.S([]string{"0", "1.50", "-12345678901234567890.000000000000000001", "NaN"}[rng.IntN(4)])
	case "float8":
		return historytest.S([]string{"0.1", "-1e+300", "Infinity", "3.141592653589793"}[rng.IntN(4)])
	case "bool":
		return historytest.S([]string{"t", "f"}[rng.IntN(2)])
	}
	if rng.IntN(2) == 0 {
		return historytest.S(hostile[rng.IntN(len(hostile))])
	}
	return historytest.S(strconv.Itoa(rng.IntN(3)))
}

// TestSQLPatchAppliesToPostgres builds a random history of a table with
// hostile identifiers and values, and for random pairs of versions loads
// the from version into PostgreSQL, applies the diff's SQL patch and
// compares the table with the to version row by row. A canary table x
// must survive every patch.
func TestSQLPatchAppliesToPostgres(t *testing.T) {
	rng := seeded(t)
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, pg.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())

	cols := [][2]string{{"id", "int8"}, {`a'b`, "text"}, {`Sel"ect`, "numeric"}, {"c; DROP TABLE x", "float8"}, {"d", "bool"}}
	schema, name := "we ird", `t"; DROP TABLE x; --`
	rel := historytest.Rel(1, schema, name, 1, cols...)
	f := historytest.New(t)
	svc := New(f.DB, f.Mirror)
	type state map[int64][]*string
	newRow := func(id int64) []*string {
		r := []*string{historytest.S(strconv.FormatInt(id, 10))}
		for _, c := range cols[1:] {
			r = append(r, hostileValue(rng, c[1]))
		}
		return r
	}
	cur := state{}
	var init [][]*string
	for id := range int64(20) {
		cur[id] = newRow(id)
		init = append(init, cur[id])
	}
	f.CreateTable(rel, init)
	versions, states := []string{}, []state{}
	for range 25 {
		next := maps.Clone(cur)
		v := f.Commit(func(tx *historytest.Tx) {
			for range 1 + rng.IntN(5) {
				id := int64(rng.IntN(30))
				switch r, ok := next[id]; {
				case ok && rng.IntN(3) == 0:
					tx.Delete(rel, strconv.FormatInt(id, 10))
					delete(next, id)
				case ok:
					r = slices.Clone(r)
					c := 1 + rng.IntN(len(cols)-1)
					r[c] = hostileValue(rng, cols[c][1])
					tx.Upsert(rel, r)
					next[id] = r
				default:
					next[id] = newRow(id)
					tx.Upsert(rel, next[id])
				}
			}
		})
		versions, states = append(versions, v.EndLSN.String()), append(states, next)
		cur = next
	}

	tbl := pgx.Identifier{schema, name}.Sanitize()
	var ddl []string
	for i, c := range cols {
		d := pgx.Identifier{c[0]}.Sanitize() + " " + c[1]
		if i == 0 {
			d += " PRIMARY KEY"
		}
		ddl = append(ddl, d)
	}
	mustExec := func(sql string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	mustExec("CREATE TABLE x (k int)")
	mustExec("CREATE SCHEMA " + pgx.Identifier{schema}.Sanitize())
	load := func(s state) {
		mustExec("DROP TABLE IF EXISTS " + tbl)
		mustExec("CREATE TABLE " + tbl + " (" + strings.Join(ddl, ", ") + ")")
		for _, r := range s {
			args := make([]any, len(r))
			ph := make([]string, len(r))
			for i, v := range r {
				if v != nil {
					args[i] = *v
				}
				ph[i] = fmt.Sprintf("$%d::text::%s", i+1, cols[i][1])
			}
			mustExec("INSERT INTO "+tbl+" VALUES ("+strings.Join(ph, ", ")+")", args...)
		}
	}
	read := func() state {
		var sel []string
		for _, c := range cols {
			sel = append(sel, pgx.Identifier{c[0]}.Sanitize())
		}
		rows, err := conn.Query(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+tbl, pgx.QueryResultFormats{pgx.TextFormatCode})
		if err != nil {
			t.Fatal(err)
		}
		out := state{}
		for rows.Next() {
			r := make([]*string, len(cols))
			ptrs := make([]any, len(cols))
			for i := range r {
				ptrs[i] = &r[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			id, _ := strconv.ParseInt(*r[0], 10, 64)
			out[id] = r
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		return out
	}
	equal := func(a, b state) bool {
		return maps.EqualFunc(a, b, func(x, y []*string) bool { return slices.EqualFunc(x, y, sameValue) })
	}
	for n := range 12 {
		i, j := rng.IntN(len(versions)), rng.IntN(len(versions))
		load(states[i])
		if got := read(); !equal(got, states[i]) {
			for id, r := range got {
				if !slices.EqualFunc(r, states[i][id], sameValue) {
					t.Logf("%d: %v vs %v", id, fmtRow(r), fmtRow(states[i][id]))
				}
			}
			t.Fatalf("loading version %d into PostgreSQL did not round-trip", i)
		}
		// The patch must mean the same under either setting.
		mustExec("SET standard_conforming_strings = " + []string{"on", "off"}[n%2])
		var patch strings.Builder
		w := NewSQLWriter(&patch)
		if _, err := svc.Diff(ctx, DiffRequest{From: versions[i], To: versions[j]}, w.Write); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.PgConn().Exec(ctx, patch.String()).ReadAll(); err != nil {
			t.Fatalf("patch %d→%d: %v\n%s", i, j, err, patch.String())
		}
		got := read()
		if !equal(got, states[j]) {
			t.Fatalf("patch %d→%d does not give version %d:\n%s", i, j, j, patch.String())
		}
		mustExec("SELECT count(*) FROM x")
		if n == 0 {
			t.Logf("sample patch:\n%s", patch.String())
		}
	}
}

func TestLiteral(t *testing.T) {
	cases := []struct {
		v    *string
		typ  string
		want string
	}{
		{nil, "int8", "NULL"},
		{historytest.S("1.50"), "numeric", `'1.50'::"numeric"`},
		{historytest.S(`it's`), "text", `'it''s'::"text"`},
		{historytest.S(`a\b'`), "text", `E'a\\b'''::"text"`},
		{historytest.S("101"), "bit", `'101'::"varbit"`},
		{historytest.S("happy"), `my schema.mood`, `'happy'::"my schema"."mood"`},
	}
	for _, c := range cases {
		got, err := Literal(c.v, c.typ)
		if err != nil || got != c.want {
			t.Errorf("Literal(%v, %s) = %s, %v; want %s", c.v, c.typ, got, err, c.want)
		}
	}
	if _, err := Literal(historytest.S("a\x00b"), "text"); err == nil {
		t.Error("a NUL byte was accepted")
	}
}

func fmtRow(r []*string) []string {
	var out []string
	for _, v := range r {
		out = append(out, displayValue(v))
	}
	return out
}

// TestSQLPatchReplicaIdentityFull applies a patch of a REPLICA IDENTITY
// FULL table (rows are their own key) with a json column, which has no
// equality operator, and a duplicate row of which only one copy goes.
func TestSQLPatchReplicaIdentityFull(t *testing.T) {
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, pg.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rel := historytest.Rel(1, "public", "f", 2, [2]string{"a", "int4"}, [2]string{"j", "json"})
	rel.Identity = wal.IdentityFull
	rel.Columns[1].TypeOID = 114
	f := historytest.New(t)
	svc := New(f.DB, f.Mirror)
	S := historytest.S
	f.CreateTable(rel, [][]*string{{S("1"), S(`{"x": 1}`)}, {S("2"), nil}, {S("3"), S(`[1, "it's"]`)}})
	// A version after the copy with f unchanged (a transaction that
	// changes no row is no version: this one changes another table).
	other := historytest.Rel(2, "public", "other", 1, [2]string{"id", "int4"})
	f.CreateTable(other, nil)
	from := f.Commit(func(tx *historytest.Tx) { tx.Insert(other, []*string{S("1")}) }).EndLSN.String()
	to := f.Commit(func(tx *historytest.Tx) {
		tx.DeleteRow(rel, []*string{S("1"), S(`{"x": 1}`)})
		tx.DeleteRow(rel, []*string{S("2"), nil})
		tx.Insert(rel, []*string{S("4"), S(`{"y": "a\\b"}`)})
	}).EndLSN.String()
	for _, sql := range []string{
		"CREATE TABLE f (a int4, j json)",
		`INSERT INTO f VALUES (1, '{"x": 1}'), (1, '{"x": 1}'), (2, NULL), (3, '[1, "it''s"]')`,
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	var patch strings.Builder
	w := NewSQLWriter(&patch)
	if _, err := svc.Diff(ctx, DiffRequest{From: from, To: to}, w.Write); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.PgConn().Exec(ctx, patch.String()).ReadAll(); err != nil {
		t.Fatalf("apply: %v\n%s", err, patch.String())
	}
	got := queryStrings(t, conn, "SELECT a::text || ' ' || coalesce(j::text, 'NULL') FROM f ORDER BY a")
	want := []string{`1 {"x": 1}`, `3 [1, "it's"]`, `4 {"y": "a\\b"}`} // one of the two duplicates stays
	if !slices.Equal(got, want) {
		t.Fatalf("after the patch: %q, want %q\n%s", got, want, patch.String())
	}
}
