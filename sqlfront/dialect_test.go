package sqlfront_test

import (
	"strings"
	"testing"
)

// TestIntegerInputFollowsMajor: integer and numeric input take 0x/0o/0b
// prefixes and underscores from PostgreSQL 16 on; before, '0x1F'::int
// fails 22P02. sidecar answered 31 whatever the followed major. Each
// statement's first line of psql's verbose output (the answer, or the
// error's SQLSTATE and message) must be PostgreSQL's, on the flat path
// and on sql/exec (a subquery), for literals and for text read from a
// column.
func TestIntegerInputFollowsMajor(t *testing.T) {
	r := newRig(t, []string{"public.nums"}, []string{
		"CREATE TABLE nums (id int PRIMARY KEY, s text)",
		"INSERT INTO nums VALUES (1, '0x1F'), (2, '1_000'), (3, ' 42 '), (4, '0o17'), (5, '0b101'), (6, '-0x10')",
	})
	stmts := []string{
		"SELECT '0x1F'::int",
		"SELECT '1_000'::bigint, '0o17'::smallint",
		"SELECT '1_000.5'::numeric",
		"SELECT id FROM nums WHERE id = '0x1'",
		"SELECT id FROM (SELECT * FROM nums) n WHERE id = '0x1'",
		"SELECT s::int FROM nums WHERE id = 3",
		"SELECT s::int FROM nums WHERE id = 1",
		"SELECT s::bigint FROM (SELECT * FROM nums) n WHERE id = 2",
		"SELECT sum(s::numeric) FROM (SELECT * FROM nums WHERE id IN (1, 6)) n",
		"SELECT count(*) FROM (SELECT * FROM nums) n WHERE s::int > 0 AND id = 5",
		// "char" input: 15+ reads \ooo as one byte, 14 keeps the
		// backslash (char.sql on 14 answered A where 14 says \)
		`SELECT '\101'::"char"`,
		`SELECT '\101'::"char"::text, 'ab'::"char"`,
		`SELECT id FROM nums WHERE s::"char" = '0' ORDER BY id`,
	}
	for _, q := range stmts {
		if got, want := firstLines(t, r, q); got != want {
			t.Errorf("%s:\n  sidecar    %q\n  PostgreSQL %q", q, got, want)
		}
	}
}

// firstLines runs q through psql (verbose errors) on the sidecar and on
// PostgreSQL and returns each output's first line: the answer, or the
// error's SQLSTATE and message.
func firstLines(t *testing.T, r *rig, q string) (sidecar, postgres string) {
	t.Helper()
	first := func(out string) string {
		line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
		return line
	}
	want, _ := psql(t, r.pgURL, "-At", "-v", "VERBOSITY=verbose", "-c", q)
	got, _ := psql(t, r.sqlURL, "-At", "-v", "VERBOSITY=verbose", "-c", q)
	return first(got), first(want)
}

// TestNumericLiteralsFollowMajor: the SQL text's numeric tokens 0x1F,
// 0o17, 0b101 and 1_000 are numbers from PostgreSQL 16 on (pg_query's
// grammar, 17's, always reads them so); 15 fails them 42601 "trailing
// junk", 14 reads `0x1F` as `0 AS x1F` (sidecar refuses: 0A000). sidecar
// answered 31 whatever the followed major.
func TestNumericLiteralsFollowMajor(t *testing.T) {
	r := newRig(t, []string{"public.nums"}, []string{
		"CREATE TABLE nums (id int PRIMARY KEY, s text)",
		"INSERT INTO nums VALUES (1, 'a'), (16, 'b'), (31, 'c')",
	})
	major, _ := psql(t, r.pgURL, "-Atc", "SHOW server_version_num")
	major = strings.TrimSpace(major)
	stmts := []string{
		"SELECT 0x1F",
		"SELECT 1_000, 2",
		"SELECT 1_000.5",
		"SELECT s FROM nums WHERE id = 0x1F",
		"SELECT s FROM nums WHERE id = 0o20",
		"SELECT count(*) FROM (SELECT * FROM nums) n WHERE id > 0b1",
		"SELECT 123abc",
		"SELECT 1.5e3x",
		"SELECT 10, 1.5, 2e3, .5, 0, 007",
	}
	for _, q := range stmts {
		got, want := firstLines(t, r, q)
		if got == want {
			continue
		}
		if major < "150000" && strings.HasPrefix(got, "ERROR:  0A000:") {
			continue // 14 splits the token: refused
		}
		t.Errorf("%s (server_version_num %s):\n  sidecar    %q\n  PostgreSQL %q", q, major, got, want)
	}
}
