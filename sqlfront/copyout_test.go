package sqlfront_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/sidecar-dev/sidecar/membudget"
	"github.com/sidecar-dev/sidecar/sqlfront"
)

// copyRig is a table of awkward values (tabs, newlines, backslashes,
// quotes, the delimiters, NULLs, empty strings, `\N` and `\.` as text,
// every common type) and a view over it, followed by sidecar; the last
// step adds row 10, so AS OF 'HEAD~1' has rows 1 to 9. (Rows are only
// added: COPY table TO writes PostgreSQL's heap order, sidecar's the
// primary key's, the same while no row was updated.)
func copyRig(t *testing.T) *rig {
	t.Helper()
	return newRig(t, []string{"public.cp"}, []string{
		`CREATE TABLE cp (id int PRIMARY KEY, t text, n numeric(12,3), f float8, ts timestamptz, arr text[], j jsonb,
			b bytea, ok bool, d date, iv interval, i8 bigint, ia int[], r real)`,
		`INSERT INTO cp VALUES
			(1, 'plain', 1.5, 0.1, '2024-01-02 03:04:05.678+00', '{a,"b c",NULL,"q\"x"}', '{"k": [1, "x\ty"], "a": null}', '\x00ff5c0a', true, '2024-02-29', '1 day 02:03:04', 9007199254740993, '{1,2}', 1.25),
			(2, E'tab\there\nnew\\back\rcr\bbs\ffeed\x0bvt', -0.001, -1e300, '1999-12-31 23:59:59.999999+05:30', '{}', '[]', '', false, '0001-01-01', '-3 mons 1 day', -1, '{}', -0.5),
			(3, '', 0, 'NaN', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
			(4, '\N', NULL, 'Infinity', '2024-07-01 12:00:00+00', '{"\\N",""}', '"str"', '\x5c4e', true, 'infinity', '0', 0, '{NULL,3}', 'NaN'),
			(5, '\.', 123456789.123, '-Infinity', '2024-11-03 06:30:00+00', NULL, '{"say": "\"hi\", ok"}', '\x', NULL, '2000-01-01', '1 year 2 mons', 1, NULL, 3.4e38),
			(6, 'a,b;c|d"e''f', 1, 1.0000000000000002, NULL, '{"a,b"}', '1.50', NULL, false, NULL, '00:00:00.000001', NULL, '{-2147483648}', NULL),
			(7, 'NULL', NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
			(8, E'ctl\x01x\x1fy h\u00e9llo \u2603', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
			(9, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
		`CREATE VIEW cpv AS SELECT id, t FROM cp`,
	}, []string{`INSERT INTO cp (id, t) VALUES (10, 'new')`})
}

// copyCases are COPY … TO STDOUT statements answered as PostgreSQL
// answers them: the same bytes, or the same error.
var copyCases = []string{
	`COPY cp TO STDOUT`,
	`COPY public.cp (t, id, ts) TO STDOUT`,
	`COPY (SELECT * FROM cp ORDER BY id) TO STDOUT`,
	`COPY (SELECT id, t FROM cpv ORDER BY id) TO STDOUT (FORMAT csv, HEADER)`,
	`COPY cp TO STDOUT WITH (FORMAT csv)`,
	`COPY cp TO STDOUT WITH (FORMAT csv, HEADER)`,
	`COPY cp TO STDOUT WITH (FORMAT csv, HEADER true)`,
	`COPY cp TO STDOUT WITH (FORMAT csv, HEADER off)`,
	`COPY cp TO STDOUT WITH (FORMAT csv, HEADER 0)`,
	`COPY cp TO STDOUT WITH (FORMAT csv, HEADER 'match')`,
	`COPY cp TO STDOUT WITH (FORMAT csv, HEADER 2)`,
	`COPY cp TO STDOUT WITH (FORMAT csv, HEADER 'yes')`,
	`COPY cp TO STDOUT WITH (FORMAT text, HEADER)`,
	`COPY cp TO STDOUT WITH (FORMAT csv, DELIMITER ';')`,
	`COPY cp TO STDOUT WITH (FORMAT csv, DELIMITER '|', NULL 'NULL')`,
	`COPY cp TO STDOUT WITH (FORMAT csv, NULL '\N')`,
	`COPY cp TO STDOUT WITH (FORMAT csv, QUOTE '''')`,
	`COPY cp TO STDOUT WITH (FORMAT csv, QUOTE '|', ESCAPE '\')`,
	`COPY cp TO STDOUT WITH (FORMAT csv, ESCAPE '"')`,
	`COPY cp TO STDOUT WITH (FORMAT csv, FORCE_QUOTE *)`,
	`COPY cp TO STDOUT WITH (FORMAT csv, FORCE_QUOTE (t, n), HEADER)`,
	`COPY cp TO STDOUT WITH (FORMAT csv, FORCE_QUOTE (nosuch))`,
	`COPY cp (id) TO STDOUT WITH (FORMAT csv, FORCE_QUOTE (t))`,
	`COPY (SELECT id, t AS "a,b" FROM cp ORDER BY id) TO STDOUT WITH (FORMAT csv, FORCE_QUOTE ("a,b"), HEADER)`,
	`COPY (SELECT id FROM cp) TO STDOUT WITH (FORMAT csv, FORCE_QUOTE (nosuch))`,
	`COPY cp TO STDOUT WITH (FORMAT text, QUOTE '"')`,
	`COPY cp TO STDOUT WITH (FORMAT text, ESCAPE '"')`,
	`COPY cp TO STDOUT WITH (FORMAT text, FORCE_QUOTE *)`,
	`COPY cp TO STDOUT WITH (FORCE_NOT_NULL (t))`,
	`COPY cp TO STDOUT WITH (FORMAT csv, FORCE_NULL (t))`,
	`COPY cp TO STDOUT WITH (FORMAT csv, FORCE_NOT_NULL (t), FORCE_NOT_NULL (id))`,
	`COPY cp TO STDOUT WITH (FREEZE false)`,
	`COPY cp TO STDOUT WITH (ON_ERROR stop)`,
	`COPY cp TO STDOUT WITH (DELIMITER ',')`,
	`COPY cp TO STDOUT WITH (DELIMITER '|', NULL '')`,
	`COPY cp TO STDOUT WITH (DELIMITER E'\x01')`,
	`COPY cp TO STDOUT WITH (DELIMITER 'ab')`,
	`COPY cp TO STDOUT WITH (DELIMITER 'a')`,
	`COPY cp TO STDOUT WITH (DELIMITER '\')`,
	`COPY cp TO STDOUT WITH (DELIMITER E'\n')`,
	`COPY cp TO STDOUT WITH (NULL E'\r')`,
	`COPY cp TO STDOUT WITH (DELIMITER ',', NULL 'a,b')`,
	`COPY cp TO STDOUT WITH (FORMAT csv, NULL 'x"')`,
	`COPY cp TO STDOUT WITH (FORMAT csv, DELIMITER '"')`,
	`COPY cp TO STDOUT WITH (FORMAT csv, QUOTE 'ab')`,
	`COPY cp TO STDOUT WITH (FORMAT csv, ESCAPE '')`,
	`COPY cp TO STDOUT WITH (FORMAT binary)`,
	`COPY (SELECT id, t, n, f, ok, d, i8, b, j, ts FROM cp ORDER BY id) TO STDOUT WITH (FORMAT binary)`,
	`COPY cp TO STDOUT WITH (FORMAT binary, DELIMITER ',')`,
	`COPY cp TO STDOUT WITH (FORMAT binary, NULL 'x')`,
	`COPY cp TO STDOUT WITH (FORMAT binary, HEADER)`,
	`COPY cp TO STDOUT WITH (FORMAT xml)`,
	`COPY cp TO STDOUT WITH (FORMAT csv, FORMAT csv)`,
	`COPY cp TO STDOUT WITH (DELIMITER ',', DELIMITER ';')`,
	`COPY cp TO STDOUT WITH (FORMAT)`,
	`COPY cp TO STDOUT WITH (foo 1)`,
	`COPY cp TO STDOUT WITH (FREEZE)`,
	`COPY cp TO STDOUT WITH (ENCODING 'UTF8')`,
	`COPY cp TO STDOUT WITH (ENCODING 'utf-8')`,
	`COPY cp TO STDOUT WITH (ENCODING 'nosuch')`,
	`COPY cp TO STDOUT WITH CSV HEADER`,
	`COPY cp TO STDOUT CSV HEADER DELIMITER AS ';' NULL AS 'nil' FORCE QUOTE *`,
	`COPY cp (id, t) TO STDOUT CSV FORCE QUOTE t QUOTE AS '''' ESCAPE AS '\'`,
	`COPY BINARY cp TO STDOUT`,
	`COPY cp TO STDOUT WITH BINARY`,
	`COPY cp TO STDOUT DELIMITER AS ','`,
	`COPY cp TO STDOUT WITH NULL AS ''`,
	`COPY (SELECT '\.'::text) TO STDOUT (FORMAT csv)`,
	`COPY (SELECT '\.'::text, 1) TO STDOUT (FORMAT csv)`,
	`COPY (SELECT '\.'::text AS "\.") TO STDOUT (FORMAT csv, HEADER)`,
	`COPY (SELECT 1 AS "" , 2 AS "a b", 3 AS "x""y") TO STDOUT (FORMAT csv, HEADER, NULL '')`,
	`COPY (SELECT 1 AS "t	ab") TO STDOUT (HEADER)`,
	`COPY (SELECT id FROM cp WHERE id > 100) TO STDOUT`,
	`COPY (SELECT id FROM cp WHERE id > 100) TO STDOUT (FORMAT binary)`,
	`COPY (SELECT id FROM cp WHERE id > 100) TO STDOUT (FORMAT csv, HEADER)`,
	`COPY (SELECT id, 1 / (id - 3) FROM cp ORDER BY id) TO STDOUT`,
	`COPY (SELECT id, 10 / id FROM cp ORDER BY id) TO STDOUT`,
	`COPY cpv TO STDOUT`,
	`COPY nosuch TO STDOUT`,
	`COPY cp (nosuch) TO STDOUT`,
	`COPY cp (id, id) TO STDOUT`,
	`COPY (SELECT nosuch FROM cp) TO STDOUT`,
	`COPY (SELECT id FROM cp WHERE id = $1) TO STDOUT`,
	`COPY (SELECT count(*), sum(n), string_agg(t, ',' ORDER BY id) FROM cp) TO STDOUT (FORMAT csv)`,
}

// copyResult is what a COPY answered: its bytes and tag, or its error.
type copyResult struct {
	data []byte
	tag  string
	err  string
}

func copyTo(t *testing.T, conn *pgx.Conn, sql string) copyResult {
	t.Helper()
	var buf bytes.Buffer
	tag, err := conn.PgConn().CopyTo(context.Background(), &buf, sql)
	if err != nil {
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: %v", sql, err)
		}
		return copyResult{err: fmt.Sprintf("%s %s (position %d)", pe.Code, pe.Message, pe.Position)}
	}
	return copyResult{data: buf.Bytes(), tag: tag.String()}
}

func copyConnBoth(t *testing.T, r *rig, setup ...string) (sc, pc *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	var err error
	if sc, err = pgx.Connect(ctx, r.sqlURL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close(ctx) })
	if pc, err = pgx.Connect(ctx, r.pgURL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close(ctx) })
	for _, s := range setup {
		for _, c := range []*pgx.Conn{sc, pc} {
			if _, err := c.Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	return sc, pc
}

// TestCopyOutDifferential compares COPY … TO STDOUT through pgx's CopyTo
// (the raw bytes) with PostgreSQL's, under UTC and under a session
// TimeZone that is not.
func TestCopyOutDifferential(t *testing.T) {
	r := copyRig(t)
	for _, zone := range []string{"UTC", "-05:30"} {
		sc, pc := copyConnBoth(t, r, "SET TimeZone = '"+zone+"'")
		for _, q := range copyCases {
			got, want := copyTo(t, sc, q), copyTo(t, pc, q)
			if got.err != want.err || !bytes.Equal(got.data, want.data) || got.tag != want.tag {
				t.Errorf("%s (TimeZone %s):\nsidecar: %q %s %s\npostgres: %q %s %s", q, zone, got.data, got.tag, got.err, want.data, want.tag, want.err)
			}
		}
	}
}

// TestCopyOutRefusals: what a read-only mirror cannot do is refused —
// COPY FROM as a standby refuses it, a server file or program with
// 0A000, an encoding other than the client's with 0A000 — and AS OF
// reads the version it names.
func TestCopyOutRefusals(t *testing.T) {
	r := copyRig(t)
	sc, _ := copyConnBoth(t, r)
	ctx := context.Background()
	for q, want := range map[string]string{
		`COPY cp FROM STDIN`:                           "25006",
		`COPY cp TO '/tmp/cp.txt'`:                     "0A000",
		`COPY cp TO PROGRAM 'cat'`:                     "0A000",
		`COPY cp TO STDOUT (ENCODING 'LATIN1')`:        "0A000",
		`COPY (DELETE FROM cp RETURNING id) TO STDOUT`: "25006",
	} {
		_, err := sc.Exec(ctx, q)
		if got := sqlState(err); got != want {
			t.Errorf("%s: %s (%v), want %s", q, got, err, want)
		}
	}
	old := copyTo(t, sc, `COPY cp AS OF 'HEAD~1' (id, t) TO STDOUT`)
	sel := copyTo(t, sc, `COPY (SELECT id, t FROM cp AS OF 'HEAD~1' ORDER BY id) TO STDOUT`)
	head := copyTo(t, sc, `COPY cp (id, t) TO STDOUT`)
	if old.err != "" || !bytes.HasSuffix(old.data, []byte("\n9\t\\N\n")) || !bytes.Equal(old.data, sel.data) || !bytes.HasSuffix(head.data, []byte("\n9\t\\N\n10\tnew\n")) {
		t.Errorf("AS OF: %q %s / %q / %q", old.data, old.err, sel.data, head.data)
	}
}

// TestCopyOutExtended sends COPY through Parse/Bind/Describe/Execute, as
// some drivers do: the same messages as PostgreSQL's (NoData at
// Describe, CopyOutResponse, the rows, CopyDone, COPY n), and its
// errors.
func TestCopyOutExtended(t *testing.T) {
	r := copyRig(t)
	sc, pc := copyConnBoth(t, r)
	for _, q := range []string{
		`COPY cp TO STDOUT (FORMAT csv, HEADER)`,
		`COPY (SELECT id, t FROM cp ORDER BY id) TO STDOUT`,
		`COPY cp (id, f, n) TO STDOUT (FORMAT binary)`,
		`COPY cp TO STDOUT (FORMAT text, QUOTE '"')`,
		`COPY (SELECT 1 / 0) TO STDOUT`,
		`COPY (SELECT $1::int) TO STDOUT`,
	} {
		got, want := extendedCopy(t, sc.PgConn(), q), extendedCopy(t, pc.PgConn(), q)
		if got != want {
			t.Errorf("%s:\nsidecar:  %s\npostgres: %s", q, got, want)
		}
	}
}

// extendedCopy runs q with the extended protocol and returns the
// messages answered, CopyData's bytes quoted.
func extendedCopy(t *testing.T, c *pgconn.PgConn, q string) string {
	t.Helper()
	fe := c.Frontend()
	fe.Send(&pgproto3.Parse{Query: q})
	fe.Send(&pgproto3.Bind{})
	fe.Send(&pgproto3.Describe{ObjectType: 'P'})
	fe.Send(&pgproto3.Execute{MaxRows: 2})
	fe.Send(&pgproto3.Sync{})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var data []byte
	for {
		m, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch m := m.(type) {
		case *pgproto3.CopyData:
			data = append(data, m.Data...)
			continue
		case *pgproto3.CopyOutResponse:
			fmt.Fprintf(&b, "CopyOutResponse%d%v ", m.OverallFormat, m.ColumnFormatCodes)
		case *pgproto3.CommandComplete:
			fmt.Fprintf(&b, "%q %s ", data, m.CommandTag)
		case *pgproto3.ErrorResponse:
			fmt.Fprintf(&b, "%q Error %s %s ", data, m.Code, m.Message)
		case *pgproto3.ReadyForQuery:
			return b.String()
		default:
			fmt.Fprintf(&b, "%T ", m)
		}
	}
}

// TestCopyOutClients: psql's \copy and COPY … TO STDOUT (to its output
// and to a file) and psycopg 3's cursor.copy() read the same bytes from
// sidecar as from PostgreSQL.
func TestCopyOutClients(t *testing.T) {
	r := copyRig(t)
	dir := t.TempDir()
	for i, cmd := range []string{
		`\copy (SELECT * FROM cp ORDER BY id) TO STDOUT CSV HEADER`,
		`\copy cp TO STDOUT`,
		`\copy (SELECT id, t, arr, j FROM cp ORDER BY id) TO 'FILE' CSV HEADER`,
		`\copy cp (id, t, b) TO 'FILE' WITH (FORMAT csv, FORCE_QUOTE *, DELIMITER ';')`,
		`COPY cp TO STDOUT (FORMAT csv, HEADER)`,
		`\copy cp TO STDOUT (FORMAT csv, HEADER 'match')`,
	} {
		var outs [2]string
		for j, url := range []string{r.sqlURL, r.pgURL} {
			file := filepath.Join(dir, fmt.Sprintf("out%d-%d.csv", i, j))
			out, err := psql(t, url, "-c", "SET TimeZone = '+05:30'", "-c", strings.ReplaceAll(cmd, "FILE", file))
			if err != nil {
				out += " (" + err.Error() + ")"
			}
			if b, err := os.ReadFile(file); err == nil {
				out += "file: " + string(b)
			}
			outs[j] = out
		}
		if outs[0] != outs[1] {
			t.Errorf("psql %s:\nsidecar:  %q\npostgres: %q", cmd, outs[0], outs[1])
		}
	}
	needPython(t, "psycopg", "python3-psycopg")
	script := `
import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as conn:
    cur = conn.cursor()
    cur.execute("SET TimeZone = '-02:00'")
    for q in sys.argv[2:]:
        try:
            out = b""
            with cur.copy(q) as copy:
                for block in copy:
                    out += bytes(block)
            print(repr(out), cur.rowcount)
        except psycopg.Error as e:
            print(e.sqlstate, e)
`
	qs := []string{
		`COPY cp TO STDOUT`,
		`COPY (SELECT * FROM cp ORDER BY id) TO STDOUT (FORMAT csv, HEADER, FORCE_QUOTE *)`,
		`COPY (SELECT id, t, n, f, ok, d, i8, j FROM cp ORDER BY id) TO STDOUT (FORMAT binary)`,
		`COPY cp TO STDOUT (FORMAT csv, HEADER match)`,
	}
	got := runPython(t, script, append([]string{r.sqlURL}, qs...)...)
	want := runPython(t, script, append([]string{r.pgURL}, qs...)...)
	if got != want {
		t.Errorf("psycopg copy:\nsidecar:  %s\npostgres: %s", got, want)
	}
}

// TestCopyOutStreams: COPY writes each row as it is read — 5,000 rows of
// ~110 bytes go out under a memory.query of 256KiB that a cursor over
// the same rows (which holds them) passes — and it stops at
// statement_timeout as a SELECT does.
func TestCopyOutStreams(t *testing.T) {
	r := newRig(t, []string{"public.big"}, []string{
		"CREATE TABLE big (id int PRIMARY KEY, v text)",
		"INSERT INTO big SELECT i, repeat('v', 100) || i FROM generate_series(1, 5000) i",
	})
	pool := membudget.NewPool("memory.query", 256<<10)
	url := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: pool, MaxConnections: 5, StatementTimeout: time.Minute}) + "/app?sslmode=disable"
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{`COPY big TO STDOUT`, `COPY (SELECT id, v FROM big WHERE id > 0) TO STDOUT (FORMAT csv, HEADER)`} {
		res := copyTo(t, conn, q)
		if n := bytes.Count(res.data, []byte("\n")); res.err != "" || n < 5000 || n > 5001 || res.tag != "COPY 5000" {
			t.Errorf("%s under 256KiB: %d lines, %s %s", q, n, res.tag, res.err)
		}
	}
	if _, err := conn.Exec(ctx, "BEGIN; DECLARE whole CURSOR FOR SELECT id, v FROM big"); sqlState(err) != "53200" {
		t.Errorf("a cursor over the same rows: %v, want 53200 (the pool is too small to hold them)", err)
	}
	if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if pool.Used() != 0 {
		t.Errorf("after the copies: %d bytes of memory.query held", pool.Used())
	}
	other, err := pgx.Connect(ctx, r.sqlURL) // the rig's default memory.query: the join fits
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	if _, err := other.Exec(ctx, "SET statement_timeout = '1ms'"); err != nil {
		t.Fatal(err)
	}
	if res := copyTo(t, other, `COPY (SELECT count(*) FROM big a, big b, big c) TO STDOUT`); !strings.HasPrefix(res.err, "57014 ") {
		t.Errorf("COPY under statement_timeout 1ms: %+v, want 57014", res)
	}
}
