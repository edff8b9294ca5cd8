package sqlfront_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestDeepStatementsRefusedNotCrashing (issue 21, a hostile client): a
// statement whose parse tree is a long left-deep chain (`1+1+…`, casts,
// `||`, UNION ALL, joins) made PostgreSQL's parser overflow its C stack
// inside cgo — a SIGSEGV that took the whole daemon down (measured: 50,000
// `1+` in one 100 KB statement; this test's process died the same way
// before). Now such a statement is refused with PostgreSQL's own
// 54001 where PostgreSQL refuses it too, and long but flat statements
// (OR chains, IN lists, many select items) still answer as PostgreSQL
// does; the server answers the next statement on the same connection.
func TestDeepStatementsRefusedNotCrashing(t *testing.T) {
	r := newRig(t, []string{"public.d"}, []string{
		"CREATE TABLE d (id int PRIMARY KEY, s text)",
		"INSERT INTO d SELECT g, 's' || g FROM generate_series(1, 50) g",
	})
	ctx := context.Background()
	sc, err := pgx.Connect(ctx, r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(ctx)
	// The rig's 30 s statement_timeout: the OR chain and the IN list take
	// 2-4 s at load 33, and went past it at load 50 in a CI run.
	if _, err := sc.Exec(ctx, "SET statement_timeout = '10min'"); err != nil {
		t.Fatal(err)
	}
	ref, err := pgx.Connect(ctx, r.pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close(ctx)

	rep := func(s string, n int, sep string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = strings.ReplaceAll(s, "%d", fmt.Sprint(i+1))
		}
		return strings.Join(parts, sep)
	}
	type tc struct {
		name, q string
		withPG  bool // compare with PostgreSQL (else: only refused 54001)
	}
	cases := []tc{
		{"plus 3000", "SELECT " + strings.Repeat("1+", 3000) + "1", true},
		{"plus 50000", "SELECT " + strings.Repeat("1+", 50000) + "1", true},
		{"concat 40000", "SELECT " + strings.Repeat("'a'||", 40000) + "'a'", true},
		{"cast 30000", "SELECT 1" + strings.Repeat("::int", 30000), true},
		{"union all 30000", "SELECT count(*) FROM (" + rep("SELECT %d", 30000, " UNION ALL ") + ") u", true},
		{"union all with select lists 30000", "SELECT count(*) FROM (" + rep("SELECT %d, 1", 30000, " UNION ALL ") + ") u", true},
		{"union all 500", "SELECT count(*), sum(x) FROM (" + rep("SELECT %d AS x", 500, " UNION ALL ") + ") u", true},
		{"join chain 20000", "SELECT count(*) FROM d d0 " + rep("JOIN d d%d ON true", 20000, " "), false},
		{"or chain 20000", "SELECT count(*) FROM d WHERE " + rep("id = %d", 20000, " OR "), true},
		{"and of comparisons 8000", "SELECT count(*) FROM d WHERE " + rep("id <> -%d", 8000, " AND "), true},
		{"in list 100000", "SELECT count(*) FROM d WHERE id IN (" + rep("%d", 100000, ",") + ")", true},
		{"select items 1600", "SELECT " + rep("id + %d * 2", 1600, ", ") + " FROM d WHERE id = 1", true},
	}
	for _, c := range cases {
		got, gerr := deepRowsText(ctx, sc, c.q)
		if !c.withPG {
			if pgCode(gerr) != "54001" {
				t.Errorf("%s: sidecar answered %.80q (%v), want 54001", c.name, got, gerr)
			}
		} else {
			want, werr := deepRowsText(ctx, ref, c.q)
			switch {
			case werr != nil && pgCode(werr) != "54001":
				t.Fatalf("%s: PostgreSQL failed: %v", c.name, werr)
			case werr != nil && pgCode(gerr) != "54001":
				t.Errorf("%s: PostgreSQL refused 54001, sidecar %.80q (%v)", c.name, got, gerr)
			case werr == nil && gerr != nil && pgCode(gerr) != "54001":
				t.Errorf("%s: PostgreSQL answered %.80q, sidecar failed: %v", c.name, want, gerr)
			case werr == nil && gerr == nil && got != want:
				t.Errorf("%s: sidecar %.80q, PostgreSQL %.80q", c.name, got, want)
			}
			if werr == nil && gerr != nil {
				t.Logf("%s: refused where PostgreSQL answers (%v)", c.name, gerr)
			}
		}
		if got, err := deepRowsText(ctx, sc, "SELECT count(*) FROM d"); err != nil || got != "50\n" {
			t.Fatalf("after %s: the next statement answered %q (%v)", c.name, got, err)
		}
	}
}

// deepRowsText runs q in the simple protocol and prints its rows,
// fields tab-separated, one row a line.
func deepRowsText(ctx context.Context, c *pgx.Conn, q string) (string, error) {
	rows, err := c.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return "", err
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('\t')
			}
			fmt.Fprint(&b, v)
		}
		b.WriteByte('\n')
	}
	return b.String(), rows.Err()
}
