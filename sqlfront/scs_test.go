package sqlfront_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestStringLiteralSettingsMatchPostgres runs one session's statements
// through PostgreSQL and the sidecar: standard_conforming_strings and
// backslash_quote change what a literal means (or refuse it), on the flat
// path and on sql/exec (the subquery in FROM), and SET reports
// standard_conforming_strings to the driver as PostgreSQL does.
func TestStringLiteralSettingsMatchPostgres(t *testing.T) {
	r := newRig(t, []string{"public.lit"}, []string{
		`CREATE TABLE lit (id int PRIMARY KEY, s text)`,
		`INSERT INTO lit VALUES (1, 'a\b'), (2, E'a\tb'), (3, 'it''s')`,
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	session := []string{
		`SELECT 'a\tb', E'a\tb', U&'d\0061t', 'it''s'`,
		`SELECT U&'d\0061t\+000061'`, // planned (and cached) under the default first
		`SELECT x FROM (SELECT 'a\tb' AS x UNION ALL SELECT 'q\'r') s ORDER BY 1`,
		`SET standard_conforming_strings = off`,
		`SHOW standard_conforming_strings`,
		`SELECT 'a\tb' AS x, 'c\\d', 'e\'f', E'g\'h', 'no backslash'`,
		`SELECT x FROM (SELECT 'a\tb' AS x UNION ALL SELECT 'q\'r') s ORDER BY 1`,
		`SELECT id FROM lit WHERE s = 'a\\b' ORDER BY id`,
		`SELECT id FROM lit WHERE s = 'a\tb' ORDER BY id`,
		"SELECT 'multi\\t'\n'line\\n' AS m",
		`SELECT U&'d\0061t\+000061'`,
		`SELECT 'x' AS U&"d\0061t"`,
		`SELECT $$a\tb$$, "lit".s FROM lit WHERE id = 3 -- a comment with 'a\'`,
		`SET standard_conforming_strings = 'nope'`,
		`SET backslash_quote = off`,
		`SHOW backslash_quote`,
		`SELECT 'a''b', 'a\\b'`,
		`SELECT 'a\'b'`,
		`RESET standard_conforming_strings`,
		`SELECT E'a\'b'`,
		`SELECT 'a\'b'`,
		`SET backslash_quote = 'maybe'`,
		`RESET backslash_quote`,
		`SELECT E'a\'b', 'a\tb'`,
		`SET standard_conforming_strings = false`,
		`RESET ALL`,
		`SELECT 'a\tb'`,
		// One query string is lexed as a whole when it arrives: a SET in
		// it changes the strings of the next queries, not of the
		// statements after it in the same string.
		`SET standard_conforming_strings = off; SELECT 'a\tb', 'c\\d'`,
		`SELECT 'a\tb'; RESET standard_conforming_strings; SELECT 'c\tb'`,
		`SELECT 'e\tb'`,
		`SET backslash_quote = off; SELECT 'a\'b'`,
		`RESET ALL; SELECT E'a\'b'`,
		`SELECT E'a\'b'`,
	}
	for _, q := range session {
		want := simpleExec(ctx, conns["postgresql"], q)
		got := simpleExec(ctx, conns["sidecar"], q)
		if !slices.Equal(got, want) {
			t.Errorf("%s\n got %q\nwant %q", q, got, want)
		}
		if g, w := conns["sidecar"].ParameterStatus("standard_conforming_strings"), conns["postgresql"].ParameterStatus("standard_conforming_strings"); g != w {
			t.Errorf("after %s: reported standard_conforming_strings %q, PostgreSQL %q", q, g, w)
		}
	}
}

// simpleExec runs q in the simple protocol and returns its rows as text, or
// its error's SQLSTATE and message.
func simpleExec(ctx context.Context, c *pgconn.PgConn, q string) []string {
	errText := func(err error) string {
		var pe *pgconn.PgError
		if asPgErr(err, &pe) {
			return "ERROR " + pe.Code + " " + pe.Message + " " + pe.Detail + " " + pe.Hint
		}
		return "ERROR " + err.Error()
	}
	var out []string
	res, err := c.Exec(ctx, q).ReadAll()
	if err != nil {
		out = append(out, errText(err))
	}
	for _, r := range res {
		out = append(out, rowsText(r)...)
	}
	if strings.HasPrefix(q, "SELECT") {
		// Once more in the extended protocol (through the plan cache).
		r := c.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if r.Err != nil {
			return append(out, "extended: "+errText(r.Err))
		}
		out = append(out, rowsText(r)...)
	}
	return out
}
