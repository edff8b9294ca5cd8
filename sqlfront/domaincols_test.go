package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/query"
)

// domainSetup makes domains over known base types (int4, a domain over
// it, varchar(10), numeric(10,2), date, timestamptz, bool, text, int2,
// int8), a domain over an enum, a table of each and a table keyed by a
// domain over int (whose key text order is not the integers' order).
var domainSetup = []string{
	`CREATE DOMAIN posint AS int CHECK (VALUE > 0)`,
	`CREATE DOMAIN pp AS posint`,
	`CREATE DOMAIN v10 AS varchar(10)`,
	`CREATE DOMAIN n102 AS numeric(10,2)`,
	`CREATE DOMAIN ddate AS date`,
	`CREATE DOMAIN dts AS timestamptz`,
	`CREATE DOMAIN dbool AS bool NOT NULL DEFAULT false`,
	`CREATE DOMAIN dtext AS text`,
	`CREATE DOMAIN dsmall AS int2`,
	`CREATE DOMAIN dbig AS int8`,
	`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`,
	`CREATE DOMAIN md AS mood`,
	`CREATE TABLE dt (id int PRIMARY KEY, p posint, q pp, v v10, n n102, d ddate, ts dts, b dbool, t dtext, i2 dsmall, i8 dbig)`,
	`INSERT INTO dt VALUES
		(1, 5, 6, 'abc', 1.5, '2024-01-31', '2024-01-31 10:00:00+00', true, 'apple', 1, 10000000000),
		(2, 12, 9, 'b', 100.25, '2023-12-01', '2020-06-01 00:00:00+00', false, 'Banana', -2, -5),
		(3, 9, 12, 'zz', 0.10, '2024-02-29', '2019-01-01 12:30:00+00', false, 'cherry', 300, 7),
		(4, NULL, NULL, NULL, NULL, NULL, NULL, true, NULL, NULL, NULL),
		(5, 100, 5, 'abc', -3.00, '2000-01-01', '2030-01-01 00:00:00+00', true, 'apple', 1, 1)`,
	`CREATE TABLE de (id int PRIMARY KEY, m md, p posint, d ddate)`,
	`INSERT INTO de VALUES (1, 'ok', 1, '2020-01-01'), (2, 'sad', 2, NULL), (3, NULL, 3, '1999-12-31'), (4, 'happy', NULL, NULL)`,
	`CREATE TABLE dk (k posint PRIMARY KEY, label text)`,
	`INSERT INTO dk VALUES (1, 'one'), (2, 'two'), (9, 'nine'), (12, 'twelve'), (100, 'hundred')`,
	`CREATE TABLE plain (k int PRIMARY KEY, w text)`,
	`INSERT INTO plain VALUES (5, 'five'), (9, 'nine'), (12, 'twelve')`,
	`CREATE VIEW dv AS SELECT id, p, v FROM dt`,
}

// domainServed are statements over domain columns PostgreSQL answers by
// the base type, answered alike (rows, RowDescription types and
// typmods, in text and in binary).
var domainServed = []string{
	"SELECT id, p, q, v, n, d, ts, b, t, i2, i8 FROM dt ORDER BY id",
	"SELECT * FROM dt WHERE id = 2",
	"SELECT p FROM dt WHERE id = 1",
	"SELECT id, p + 1, p::int, q * 2, n + 1, v || 'x', upper(t), d + 1, ts > '2021-01-01', NOT b, i2 + i2, i8 * 2 FROM dt ORDER BY id",
	"SELECT id FROM dt WHERE p > 9 ORDER BY id",
	"SELECT id FROM dt WHERE q >= 6 AND n < 50 ORDER BY id",
	"SELECT id, p FROM dt ORDER BY p DESC NULLS LAST, id",
	"SELECT id, n FROM dt ORDER BY n, id",
	"SELECT id, t FROM dt ORDER BY t COLLATE \"C\", id",
	"SELECT sum(p), avg(n), max(v), min(d), max(ts), count(DISTINCT q), sum(i8), max(i2), bool_and(b) FROM dt",
	"SELECT p, count(*) FROM dt GROUP BY p ORDER BY p",
	"SELECT v, count(*), sum(q) FROM dt GROUP BY v ORDER BY v",
	"SELECT a.id, b.id FROM dt a JOIN dt b ON a.p = b.q ORDER BY 1, 2",
	"SELECT dt.id, plain.w FROM dt JOIN plain ON plain.k = dt.p ORDER BY 1",
	"SELECT length(v), t LIKE 'a%', n::int, round(n, 1), extract(year FROM d) FROM dt ORDER BY id",
	"SELECT coalesce(p, 0), greatest(p, q), nullif(p, 5) FROM dt ORDER BY id",
	"SELECT x FROM (SELECT p AS x FROM dt) s ORDER BY x",
	"WITH c AS (SELECT q FROM dt) SELECT q FROM c ORDER BY q",
	"SELECT p::text, n::text, v::text, i8::text FROM dt ORDER BY id",
	"SELECT p FROM dt UNION SELECT q FROM dt ORDER BY 1",
	"SELECT to_json(p), to_json(n), to_json(v) FROM dt ORDER BY id",
	"SELECT k, label FROM dk WHERE k > 5 ORDER BY k",
	"SELECT k FROM dk ORDER BY k DESC LIMIT 3",
	"SELECT label FROM dk WHERE k = 12",
	"SELECT min(k), max(k) FROM dk",
	"SELECT id, p, v FROM dv WHERE p < 50 ORDER BY p",
	"SELECT id, m FROM de ORDER BY id",
	"SELECT id, m::text FROM de WHERE m IS NOT NULL ORDER BY id",
	"SELECT count(*), count(m) FROM de",
	"SELECT id, p + 1 FROM de ORDER BY p",
	"SELECT m, p + 1 FROM de ORDER BY id",
	"SELECT id, m, p FROM de ORDER BY id",
	"SELECT id, d + 1 FROM de ORDER BY d, id",
	"SELECT id FROM de ORDER BY m, id", // a domain over an enum: the enum's order (enum.go)
	"SELECT m, d FROM de",
}

// domainRefused are statements PostgreSQL answers by the domain type
// itself (or on an enum), refused 0A000 with the words given.
var domainRefused = map[string]string{
	"SELECT pg_typeof(p) FROM dt":                                             "pg_typeof",
	"SELECT pg_typeof(coalesce(p, q)) FROM dt":                                "pg_typeof",
	"SELECT ARRAY[p] FROM dt":                                                 "array",
	"SELECT array_agg(p ORDER BY id) FROM dt":                                 "array_agg",
	"SELECT ARRAY(SELECT q FROM dt ORDER BY id)":                              "ARRAY",
	"SELECT array_agg(p) FROM dt":                                             "array_agg",
	"SELECT ARRAY[p, q] FROM dt WHERE id = 1":                                 "array",
	"SELECT pg_typeof(p) FROM dt WHERE id = 1":                                "pg_typeof",
	"SELECT string_agg(v, ',' ORDER BY id), array_agg(v ORDER BY id) FROM dt": "array_agg",
}

// TestDomainColumns: columns of domains over known base types are served
// as the base type's values, described on the wire by the base type and
// its typmod as PostgreSQL's RowDescription does (it named the domain's
// OID, and every use other than the value itself was refused), and
// pg_typeof and arrays, which PostgreSQL types by the domain, are
// refused.
func TestDomainColumns(t *testing.T) {
	r := newRig(t, []string{"public.dt", "public.dk", "public.plain", "public.de"}, domainSetup, []string{
		`UPDATE dt SET p = 7, v = 'upd' WHERE id = 3`,
		`INSERT INTO dt VALUES (6, 3, 3, 'six', 6.66, '2010-10-10', '2010-10-10 10:10:10+00', false, 'date', 6, 6)`,
		`INSERT INTO dk VALUES (20, 'twenty')`,
		`ALTER DOMAIN posint ADD CONSTRAINT below CHECK (VALUE < 1000)`,
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	pgc, sc := conns["postgresql"], conns["sidecar"]
	for _, q := range domainServed {
		for _, format := range []int16{0, 1} {
			want := pgc.ExecParams(ctx, q, nil, nil, nil, []int16{format}).Read()
			if want.Err != nil {
				t.Fatalf("PostgreSQL: %s: %v", q, want.Err)
			}
			got := sc.ExecParams(ctx, q, nil, nil, nil, []int16{format}).Read()
			if got.Err != nil {
				if format == 1 && pgCode(got.Err) == "0A000" {
					continue // a send form sidecar does not make: refused, not answered otherwise
				}
				t.Errorf("sidecar (format %d): %s: %v", format, q, got.Err)
				continue
			}
			if g, w, same := sameAnswerRows(q, got, want); !same {
				t.Errorf("sidecar (format %d): %s: rows differ\n got %q\nwant %q", format, q, g, w)
			}
			if g, w := fieldTypes(got), fieldTypes(want); !slices.Equal(g, w) {
				t.Errorf("sidecar (format %d): %s: RowDescription\n got %v\nwant %v", format, q, g, w)
			}
		}
	}
	for q, words := range domainRefused {
		want := pgc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if want.Err != nil {
			t.Errorf("PostgreSQL: %s: %v (the statement should be one PostgreSQL answers)", q, want.Err)
		}
		got := sc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if got.Err == nil {
			t.Errorf("sidecar answered %s (%q), want 0A000 naming %s", q, rowsText(got), words)
		} else if pgCode(got.Err) != "0A000" || !strings.Contains(got.Err.Error(), words) {
			t.Errorf("sidecar: %s: %v, want 0A000 naming %s", q, got.Err, words)
		}
	}
	domainQueries(t, r, pgc)
	domainDiffTypes(t, sc, pgc)
	// Prepared: ParameterDescription and RowDescription as PostgreSQL's.
	for i, q := range []string{
		"SELECT id, p FROM dt WHERE p = $1",
		"SELECT id FROM dt WHERE p > $1 OR q = $2",
		"SELECT id, n FROM dt WHERE n > $1 AND v <> $2 AND d < $3",
		"SELECT k FROM dk WHERE k > $1 ORDER BY k",
	} {
		name := fmt.Sprintf("dom%d", i)
		want, err := pgc.Prepare(ctx, name, q, nil)
		if err != nil {
			t.Fatalf("PostgreSQL: prepare %s: %v", q, err)
		}
		got, err := sc.Prepare(ctx, name, q, nil)
		if err != nil {
			t.Errorf("sidecar: prepare %s: %v", q, err)
			continue
		}
		if !slices.Equal(got.ParamOIDs, want.ParamOIDs) {
			t.Errorf("sidecar: %s: ParameterDescription %v, PostgreSQL %v", q, got.ParamOIDs, want.ParamOIDs)
		}
		if g, w := descTypes(got.Fields), descTypes(want.Fields); !slices.Equal(g, w) {
			t.Errorf("sidecar: %s: RowDescription %v, PostgreSQL %v", q, g, w)
		}
		args := [][]byte{[]byte("9")}
		for len(args) < len(want.ParamOIDs) {
			args = append(args, []byte([]string{"9", "1", "b", "2024-01-01"}[len(args)]))
		}
		if strings.Contains(q, "n >") {
			args = [][]byte{[]byte("1"), []byte("b"), []byte("2024-01-01")}
		}
		wr := pgc.ExecPrepared(ctx, name, args, nil, nil).Read()
		gr := sc.ExecPrepared(ctx, name, args, nil, nil).Read()
		if wr.Err != nil || gr.Err != nil {
			t.Errorf("%s: PostgreSQL %v, sidecar %v", q, wr.Err, gr.Err)
		} else if g, w, same := sameAnswerRows(q, gr, wr); !same {
			t.Errorf("sidecar: %s: rows differ\n got %q\nwant %q", q, g, w)
		}
	}
}

// fieldTypes are a result's columns' type OIDs, typmods and sizes.
func fieldTypes(r *pgconn.Result) []string {
	return descTypes(r.FieldDescriptions)
}

// descTypes are the type OIDs, typmods and sizes of a RowDescription.
func descTypes(fs []pgconn.FieldDescription) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s:%d(%d)/%d", f.Name, f.DataTypeOID, f.TypeModifier, f.DataTypeSize))
	}
	return out
}

// TestDomainColumnsFollowDDL: after ALTER DOMAIN … ADD CONSTRAINT, a
// domain created after the copy with a column altered to it, and a
// column of a domain added, the domain columns are served by their base
// types with PostgreSQL's rows and RowDescription (the resync reads
// their base types and typmods again).
func TestDomainColumnsFollowDDL(t *testing.T) {
	pgURL, sqlURL := liveDaemon(t, []string{"public.dd"}, []string{
		`CREATE DOMAIN posint AS int CHECK (VALUE > 0)`,
		`CREATE TABLE dd (id int PRIMARY KEY, p posint, x int)`,
		`INSERT INTO dd VALUES (1, 5, 10), (2, 12, 20), (3, 9, NULL)`,
	})
	ctx := context.Background()
	pgc, scp := liveConns(t, pgURL)
	same := func(what, q string) {
		t.Helper()
		want := pgc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if want.Err != nil {
			t.Fatalf("PostgreSQL: %s: %v", q, want.Err)
		}
		eventuallySQL(t, sqlURL, scp, what, q, func(rows []string, err error) bool {
			return err == nil && slices.Equal(rows, rowsText(want))
		})
		got := (*scp).ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if g, w := fieldTypes(got), fieldTypes(want); got.Err != nil || !slices.Equal(g, w) {
			t.Errorf("%s%s: RowDescription %v (%v), PostgreSQL %v", what, q, g, got.Err, w)
		}
	}
	same("copied: ", "SELECT id, p, p + 1 FROM dd WHERE p > 6 ORDER BY p")
	execSQL(t, pgURL, `ALTER DOMAIN posint ADD CONSTRAINT below CHECK (VALUE < 1000)`, `INSERT INTO dd VALUES (4, 999, 40)`)
	same("after ALTER DOMAIN: ", "SELECT id, p, p * 2 FROM dd ORDER BY p")
	execSQL(t, pgURL, `CREATE DOMAIN n61 AS numeric(6,1)`, `ALTER TABLE dd ALTER COLUMN x TYPE n61`, `UPDATE dd SET x = x + 0.5 WHERE id = 1`)
	same("after a column altered to a new domain: ", "SELECT id, x, x * 2, sum(x) OVER () FROM dd ORDER BY x NULLS FIRST, id")
	execSQL(t, pgURL, `ALTER TABLE dd ADD COLUMN y posint`, `UPDATE dd SET y = 100 / id`)
	same("after ADD COLUMN of a domain: ", "SELECT id, y, y > 30 FROM dd ORDER BY y, id")
}

// domainQueries: the scan and aggregate engine (POST /api/query, sidecar
// agg) compares a domain over text or varchar as that type (it refused
// every domain column), and still refuses one over a type it would
// compare as text (a domain over int).
func domainQueries(t *testing.T, r *rig, pgc *pgconn.PgConn) {
	t.Helper()
	ctx := context.Background()
	engines := queryEngines(r) // valuetypes_query_test.go
	queryMatchesPG(t, engines, pgc, query.Request{Table: "public.dt", Aggs: []query.Agg{{Func: "count"}}, Where: &query.Expr{Op: "=", Col: "t", Values: []string{"apple"}}},
		"SELECT count(*) FROM dt WHERE t = 'apple'")
	queryMatchesPG(t, engines, pgc, query.Request{Table: "public.dt", GroupBy: []string{"v"}, Aggs: []query.Agg{{Func: "count"}, {Func: "max", Col: "t"}}},
		`SELECT v, count(*), max(t COLLATE "C") FROM dt GROUP BY v ORDER BY v COLLATE "C" NULLS LAST`)
	for name, e := range engines {
		_, _, err := e.Run(ctx, query.Request{Table: "public.dt", Aggs: []query.Agg{{Func: "count"}}, Where: &query.Expr{Op: ">", Col: "p", Values: []string{"9"}}})
		if err == nil || !errors.Is(err, query.ErrBadRequest) || !strings.Contains(err.Error(), "posint") {
			t.Errorf("query (%s) p > 9 on a domain over int: %v, want the refusal naming posint", name, err)
		}
	}
}

// domainDiffTypes: sidecar.diff describes a domain column's values as
// PostgreSQL describes the column, by the base type and its typmod (it
// named the domain's OID, which no client decodes).
func domainDiffTypes(t *testing.T, sc, pgc *pgconn.PgConn) {
	t.Helper()
	ctx := context.Background()
	want := pgc.ExecParams(ctx, "SELECT id, p, q, v, n, d, ts, p, q, v, n, d, ts FROM dt WHERE id = 1", nil, nil, nil, nil).Read()
	got := sc.ExecParams(ctx, "SELECT id, from_p, from_q, from_v, from_n, from_d, from_ts, to_p, to_q, to_v, to_n, to_d, to_ts "+
		"FROM sidecar.diff('public.dt', 'HEAD~2', 'HEAD')", nil, nil, nil, nil).Read()
	if want.Err != nil || got.Err != nil {
		t.Fatalf("sidecar.diff: PostgreSQL %v, sidecar %v", want.Err, got.Err)
	}
	if len(got.Rows) == 0 {
		t.Errorf("sidecar.diff('public.dt', 'HEAD~2', 'HEAD'): no rows, want the changes of the steps")
	}
	strip := func(ts []string) []string {
		for i, s := range ts {
			ts[i] = s[strings.Index(s, ":"):]
		}
		return ts
	}
	if g, w := strip(fieldTypes(got)), strip(fieldTypes(want)); !slices.Equal(g, w) {
		t.Errorf("sidecar.diff RowDescription\n got %v\nwant %v (the columns' on PostgreSQL)", g, w)
	}
}
