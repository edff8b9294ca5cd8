package sqlfront_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// enumSetup: two enum types whose sort order is neither their labels'
// text order nor their OID order (ADD VALUE BEFORE / AFTER give the
// labels sort orders 1.5 and 1.5 and the highest OIDs), a table holding
// them with NULLs, and a second table to join on them.
var enumSetup = []string{
	`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`,
	`ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok'`,
	`CREATE TYPE size AS ENUM ('small', 'large')`,
	`ALTER TYPE size ADD VALUE 'medium' AFTER 'small'`,
	`CREATE TABLE em (id int PRIMARY KEY, m mood, s size, note text)`,
	`INSERT INTO em VALUES (1, 'ok', 'large', 'a'), (2, 'sad', 'small', 'b'), (3, 'happy', NULL, 'c'),
		(4, NULL, 'medium', 'd'), (5, 'meh', 'medium', 'e'), (6, 'ok', 'small', 'f'), (7, 'sad', 'large', NULL)`,
	`CREATE TABLE ej (id int PRIMARY KEY, m mood, tag text)`,
	`INSERT INTO ej VALUES (1, 'ok', 'x'), (2, 'meh', 'y'), (3, NULL, 'z'), (4, 'happy', 'w'), (5, 'ok', 'v')`,
	// Keyed by enums: the key is stored in the labels' text order.
	`CREATE TABLE ek (m mood PRIMARY KEY, n int)`,
	`INSERT INTO ek VALUES ('sad', 1), ('meh', 2), ('ok', 3), ('happy', 4)`,
	`CREATE TABLE ek2 (s size, id int, PRIMARY KEY (s, id))`,
	`INSERT INTO ek2 VALUES ('small', 1), ('small', 2), ('medium', 1), ('medium', 3), ('large', 2)`,
}

// enumServed are statements computing on enum columns that sidecar
// answers as PostgreSQL does.
var enumServed = []string{
	"SELECT id, m FROM em WHERE m = 'ok' ORDER BY id",
	"SELECT id FROM em WHERE m IN ('ok', 'sad') ORDER BY id",
	"SELECT id, m FROM em WHERE m < 'ok' ORDER BY id",
	"SELECT id FROM em WHERE m >= 'meh' AND s > 'small' ORDER BY id",
	"SELECT id FROM em WHERE m <> 'ok' ORDER BY id",
	"SELECT id FROM em WHERE m BETWEEN 'sad' AND 'ok' ORDER BY id",
	"SELECT m, count(*) FROM em GROUP BY m ORDER BY m",
	"SELECT m, s, count(*) FROM em GROUP BY m, s ORDER BY m, s",
	"SELECT id, m, s FROM em ORDER BY m, id",
	"SELECT id, m FROM em ORDER BY m DESC NULLS LAST, id",
	"SELECT id, s FROM em ORDER BY s NULLS FIRST, id DESC",
	"SELECT id, m FROM em ORDER BY m, id LIMIT 3",
	"SELECT min(m), max(m), min(s), max(s) FROM em",
	"SELECT m, max(s), min(s) FROM em GROUP BY m ORDER BY 1",
	"SELECT DISTINCT m FROM em ORDER BY m",
	"SELECT DISTINCT s FROM em",
	"SELECT count(DISTINCT m), count(DISTINCT s), count(m) FROM em",
	"SELECT em.id, ej.tag FROM em JOIN ej ON em.m = ej.m ORDER BY 1, 2",
	"SELECT em.id, ej.id FROM em LEFT JOIN ej ON em.m = ej.m AND ej.tag <> 'v' ORDER BY 1, 2",
	"SELECT id, m::text, s::varchar, m::text || '!' FROM em ORDER BY id",
	"SELECT id, m || '!', 'x' || s FROM em ORDER BY id",
	"SELECT 'ok'::mood, 'meh'::mood < 'ok'::mood, 'medium'::size > 'large'",
	"SELECT id FROM em WHERE m = 'ok'::mood ORDER BY id",
	"SELECT id FROM em WHERE m::text = 'ok' ORDER BY id",
	"SELECT id FROM em WHERE m = 'happy'::text::mood ORDER BY id",
	"SELECT id, CASE WHEN m > 'ok' THEN 'hi' ELSE 'lo' END FROM em ORDER BY id",
	"SELECT id, m, row_number() OVER (ORDER BY m NULLS FIRST, id) FROM em ORDER BY 3",
	"SELECT max(m) FILTER (WHERE id > 2), min(m) FILTER (WHERE s IS NOT NULL) FROM em",
	"SELECT id FROM em WHERE m = (SELECT max(m) FROM ej) ORDER BY id",
	"SELECT id FROM em WHERE m IN (SELECT m FROM ej WHERE tag < 'x') ORDER BY id",
	"SELECT m FROM em UNION SELECT m FROM ej ORDER BY 1",
	"SELECT m, count(*) FROM (SELECT m FROM em UNION ALL SELECT m FROM ej) u GROUP BY m ORDER BY m DESC",
	"SELECT enum_first(NULL::mood), enum_last(m), enum_first(s) FROM em WHERE id = 1",
	"SELECT id, greatest(m, 'ok'), least(s, 'medium'), coalesce(m, 'meh'), nullif(m, 'ok') FROM em ORDER BY id",
	"SELECT string_agg(m::text, ',' ORDER BY m, id) FROM em",
	"SELECT id, m IS DISTINCT FROM 'ok', m IS NULL FROM em ORDER BY id",
	"SELECT m, n FROM ek WHERE m < 'ok' ORDER BY n",
	"SELECT m, n FROM ek WHERE m > 'meh' AND m <= 'happy' ORDER BY n",
	"SELECT m, n FROM ek WHERE m = 'ok'",
	"SELECT m FROM ek ORDER BY m LIMIT 2",
	"SELECT m FROM ek ORDER BY m DESC",
	"SELECT s, id FROM ek2 WHERE s = 'medium' AND id > 1",
	"SELECT s, id FROM ek2 WHERE s < 'large' ORDER BY s, id",
	"SELECT s, id FROM ek2 WHERE s >= 'medium' ORDER BY s DESC, id",
	"SELECT s, count(*) FROM ek2 GROUP BY s ORDER BY s",
	"SELECT ek.n, ek2.id FROM ek JOIN em ON em.m = ek.m JOIN ek2 ON ek2.s = em.s ORDER BY 1, 2",
	"SELECT id, m = 'happy', m < (CASE WHEN id > 3 THEN 'ok' ELSE 'meh' END)::mood FROM em ORDER BY id",
}

// enumErrors fail as in PostgreSQL: an invalid label 22P02, enum
// compared with text or another enum 42883.
var enumErrors = []string{
	"SELECT id FROM em WHERE m = 'nope'",
	"SELECT 'nope'::mood",
	"SELECT id FROM em WHERE m IN ('ok', 'Ok')",
	"SELECT id FROM em WHERE m = 'ok'::text",
	"SELECT id FROM em WHERE m = s",
	"SELECT id FROM em WHERE m > 1",
	"SELECT id FROM em WHERE m::text::mood = 'x'",
}

// enumRefused are refused with 0A000: arrays of an enum, an enum as
// JSON (sql/builtin's to_json does not take one yet).
var enumRefused = []string{
	"SELECT id, to_json(m) FROM em ORDER BY id",
	"SELECT row_to_json(em) FROM em ORDER BY id",
	"SELECT json_agg(m ORDER BY id) FROM em",
	"SELECT array_agg(m ORDER BY id) FROM em",
	"SELECT enum_range(NULL::mood)",
}

// TestEnumColumns (issue 21/23): statements computing on user enum
// columns — comparisons with literals, IN, BETWEEN, ORDER BY, GROUP BY,
// DISTINCT, min/max, count(DISTINCT), joins on them, casts to and from
// text and 'x'::mood, parameters — answer as PostgreSQL does, ordering
// by pg_enum.enumsortorder (a label added BEFORE sorts between, though
// its OID is the highest and its text sorts elsewhere); an invalid label
// fails 22P02 and enum = text 42883 with PostgreSQL's messages. Before,
// every one of them was refused with 0A000.
func TestEnumColumns(t *testing.T) {
	r := newRig(t, []string{"public.em", "public.ej", "public.ek", "public.ek2"}, enumSetup, []string{
		`UPDATE em SET m = 'happy' WHERE id = 6`,
		`INSERT INTO ek2 VALUES ('large', 1)`,
		`INSERT INTO em VALUES (8, 'meh', 'large', 'h'), (9, NULL, NULL, 'i')`,
		`DELETE FROM ej WHERE id = 5`,
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	pgc, sc := conns["postgresql"], conns["sidecar"]
	enumCompare(t, ctx, pgc, sc, enumServed)
	enumErrorsCompare(t, ctx, pgc, sc, enumErrors)
	for _, q := range enumRefused {
		if g := sc.ExecParams(ctx, q, nil, nil, nil, nil).Read(); pgCode(g.Err) != "0A000" {
			t.Errorf("sidecar: %s: %q %v, want 0A000", q, rowsText(g), g.Err)
		}
	}
	// The extended protocol: $1 opposite an enum column is of the enum
	// type (ParameterDescription), its value read as a label.
	q := "SELECT id FROM em WHERE m = $1 ORDER BY id"
	want, err := pgc.Prepare(ctx, "pe", q, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := sc.Prepare(ctx, "pe", q, nil)
	if err != nil {
		t.Fatalf("sidecar: prepare %s: %v", q, err)
	}
	if !slices.Equal(got.ParamOIDs, want.ParamOIDs) {
		t.Errorf("sidecar: %s: parameter types %v, PostgreSQL %v", q, got.ParamOIDs, want.ParamOIDs)
	}
	for _, v := range []string{"ok", "meh", "nope"} {
		w := pgc.ExecPrepared(ctx, "pe", [][]byte{[]byte(v)}, nil, nil).Read()
		g := sc.ExecPrepared(ctx, "pe", [][]byte{[]byte(v)}, nil, nil).Read()
		sameResult(t, "$1 = "+v+": "+q, g, w)
	}
}

// TestEnumAsOfLabels: the labels are the facts' at each version. After
// ALTER TYPE … ADD VALUE and RENAME VALUE (read by a catalog poll), a
// statement AS OF the version before reads that version's labels and
// answers as PostgreSQL did then; at HEAD a stored label the type no
// longer has (renamed: PostgreSQL shows the new name) is refused with
// 0A000, never compared in a wrong order, and the new label is known.
func TestEnumAsOfLabels(t *testing.T) {
	// The catalog poll records the facts at HEAD's LSN: the version AS OF
	// reads is one before it (the second step changes ej only, so em at
	// the first step's version is em now).
	r := newRig(t, []string{"public.em", "public.ej"}, enumSetup, []string{`UPDATE em SET m = 'sad' WHERE id = 3`}, []string{`UPDATE ej SET tag = 'u' WHERE id = 1`})
	ctx := context.Background()
	conns := connectBoth(t, r)
	pgc, sc := conns["postgresql"], conns["sidecar"]
	v1 := "'" + r.lsns[0] + "'"
	stmts := []string{
		"SELECT id, m FROM em%s WHERE m < 'ok' ORDER BY m, id",
		"SELECT m, count(*) FROM em%s GROUP BY m ORDER BY m",
		"SELECT max(m), min(m) FROM em%s",
	}
	before := map[string]*pgconn.Result{}
	for _, s := range stmts {
		q := strings.ReplaceAll(s, "%s", "")
		before[s] = pgc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
	}
	execSQL(t, r.pgURL, "ALTER TYPE mood ADD VALUE 'glad' BEFORE 'happy'", "ALTER TYPE mood RENAME VALUE 'sad' TO 'blue'")
	pollFacts(t, r)
	for _, s := range stmts {
		q := strings.ReplaceAll(s, "%s", " AS OF "+v1)
		sameResult(t, q+" (AS OF the version before the ALTER TYPEs)", sc.ExecParams(ctx, q, nil, nil, nil, nil).Read(), before[s])
	}
	// At HEAD the stored 'sad' is PostgreSQL's 'blue': refused.
	for _, s := range stmts {
		q := strings.ReplaceAll(s, "%s", "")
		if g := sc.ExecParams(ctx, q, nil, nil, nil, nil).Read(); pgCode(g.Err) != "0A000" {
			t.Errorf("sidecar at HEAD after RENAME VALUE: %s: %q %v, want 0A000", q, rowsText(g), g.Err)
		}
	}
	// Printing the column itself (no computation on it): PostgreSQL
	// prints the new label 'blue' for a stored 'sad'; the flat planner
	// printed the mirror's old text 'sad' (a wrong answer on dee3915's
	// and the enums merge's code). PostgreSQL's answer or 0A000.
	for _, q := range []string{
		"SELECT id, m FROM em ORDER BY id",
		"SELECT * FROM em WHERE id = 3",
		"SELECT m::text FROM em WHERE id = 3",
		"SELECT id, m FROM em WHERE id < 4",
	} {
		want := pgc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if want.Err != nil {
			t.Fatalf("PostgreSQL: %s: %v", q, want.Err)
		}
		got := sc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if got.Err != nil && pgCode(got.Err) == "0A000" {
			continue
		}
		sameResult(t, q+" (at HEAD after RENAME VALUE)", got, want)
	}
	// The added label is known at HEAD (a table without renamed labels).
	enumCompare(t, ctx, pgc, sc, []string{
		"SELECT id, m FROM ej WHERE m < 'glad' ORDER BY m, id",
		"SELECT 'glad'::mood > 'ok', 'glad'::mood < 'happy'",
	})
}

// enumCompare runs each statement on both servers and wants the same
// rows, in text and in binary format.
func enumCompare(t *testing.T, ctx context.Context, pgc, sc *pgconn.PgConn, stmts []string) {
	t.Helper()
	for _, q := range stmts {
		want := pgc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if want.Err != nil {
			t.Fatalf("PostgreSQL: %s: %v", q, want.Err)
		}
		sameResult(t, q, sc.ExecParams(ctx, q, nil, nil, nil, nil).Read(), want)
		sameResult(t, q+" (binary)", sc.ExecParams(ctx, q, nil, nil, nil, []int16{1}).Read(), pgc.ExecParams(ctx, q, nil, nil, nil, []int16{1}).Read())
	}
}

// sameResult wants got to be want: the same rows (column types too), or
// the same error (SQLSTATE and message).
func sameResult(t *testing.T, q string, got, want *pgconn.Result) {
	t.Helper()
	if want.Err != nil || got.Err != nil {
		if pgCode(got.Err) != pgCode(want.Err) || errMessage(got.Err) != errMessage(want.Err) {
			t.Errorf("sidecar: %s: %v (%s), PostgreSQL %v (%s)", q, got.Err, pgCode(got.Err), want.Err, pgCode(want.Err))
		}
		return
	}
	if g, w, same := sameAnswerRows(q, got, want); !same {
		t.Errorf("sidecar: %s: rows differ\n got %q\nwant %q", q, g, w)
	}
	if len(got.FieldDescriptions) != len(want.FieldDescriptions) {
		t.Errorf("sidecar: %s: %d columns, PostgreSQL %d", q, len(got.FieldDescriptions), len(want.FieldDescriptions))
		return
	}
	for i, f := range got.FieldDescriptions {
		if w := want.FieldDescriptions[i]; f.DataTypeOID != w.DataTypeOID || f.Name != w.Name {
			t.Errorf("sidecar: %s: column %d is %s of type %d, PostgreSQL %s of %d", q, i, f.Name, f.DataTypeOID, w.Name, w.DataTypeOID)
		}
	}
	for i := range got.Rows {
		for c := range got.Rows[i] {
			if i < len(want.Rows) && c < len(want.Rows[i]) && !bytes.Equal(got.Rows[i][c], want.Rows[i][c]) && strings.Contains(strings.ToUpper(q), "ORDER BY") {
				t.Errorf("sidecar: %s: row %d column %d is %q, PostgreSQL %q", q, i, c, got.Rows[i][c], want.Rows[i][c])
			}
		}
	}
}

// enumErrorsCompare wants each statement to fail on sidecar as on
// PostgreSQL.
func enumErrorsCompare(t *testing.T, ctx context.Context, pgc, sc *pgconn.PgConn, stmts []string) {
	t.Helper()
	for _, q := range stmts {
		want := pgc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if want.Err == nil {
			t.Fatalf("PostgreSQL answered %s", q)
		}
		sameResult(t, q, sc.ExecParams(ctx, q, nil, nil, nil, nil).Read(), want)
	}
}

// errMessage is a server error's message ("" for none).
func errMessage(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	if err != nil {
		return err.Error()
	}
	return ""
}
