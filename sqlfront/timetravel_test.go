package sqlfront_test

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/history"
)

// historyRig has three versions of accounts: lsns[0] after the first
// step (id 1 renamed), lsns[1] after the second (id 2 deleted, id 100
// added).
func historyRig(t *testing.T) *rig {
	return newRig(t, []string{"public.accounts"}, []string{
		"CREATE TABLE accounts (id int PRIMARY KEY, name text, balance numeric(12,2))",
		"INSERT INTO accounts SELECT g, 'n' || g, g FROM generate_series(1, 50) g",
	},
		[]string{"UPDATE accounts SET name = 'renamed' WHERE id = 1"},
		[]string{"DELETE FROM accounts WHERE id = 2", "INSERT INTO accounts VALUES (100, 'new', 1.5)"},
	)
}

func queryStrings(t *testing.T, conn *pgx.Conn, sql string, args ...any) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		s := ""
		for i, v := range vals {
			if i > 0 {
				s += "|"
			}
			s += fmtAny(v)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func fmtAny(v any) string {
	if v == nil {
		return "NULL"
	}
	switch x := v.(type) {
	case string:
		return x
	}
	b, _ := pgxText(v)
	return b
}

func pgxText(v any) (string, error) {
	type stringer interface{ String() string }
	if s, ok := v.(stringer); ok {
		return s.String(), nil
	}
	return fmtDefault(v), nil
}

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func TestTimeTravel(t *testing.T) {
	r := historyRig(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	one := func(sql string, args ...any) string {
		t.Helper()
		got := queryStrings(t, conn, sql, args...)
		if len(got) != 1 {
			t.Fatalf("%s: want one row, got %q", sql, got)
		}
		return got[0]
	}
	// AS OF a table (LSN, HEAD~N), HEAD by default.
	if got := one("SELECT name FROM accounts WHERE id = 1"); got != "renamed" {
		t.Errorf("HEAD: %q", got)
	}
	if got := one("SELECT count(*) FROM accounts AS OF 'HEAD~1'"); got != "50" {
		t.Errorf("HEAD~1 count: %q", got)
	}
	if got := one("SELECT count(*) FROM accounts AS OF '" + r.lsns[0] + "' WHERE id = 2"); got != "1" {
		t.Errorf("AS OF %s: %q", r.lsns[0], got)
	}
	if got := one("SELECT a.name, b.name FROM accounts AS OF 'HEAD~2' a JOIN accounts b ON a.id = b.id WHERE a.id = 1"); got != "n1|renamed" {
		t.Errorf("join of two versions: %q", got)
	}
	if got := one("SELECT t.name FROM sidecar.as_of('public.accounts', 'HEAD~2') t WHERE t.id = 1"); got != "n1" {
		t.Errorf("sidecar.as_of: %q", got)
	}
	// A bad ref: 22023 with the resolver's message.
	_, err = conn.Exec(ctx, "SELECT * FROM accounts AS OF 'nosuchtag'")
	if pgCode(err) != "22023" {
		t.Errorf("bad ref: %v", err)
	}
	// SET sidecar.as_of, SHOW, RESET.
	if _, err := conn.Exec(ctx, "SET sidecar.as_of = '"+r.lsns[0]+"'"); err != nil {
		t.Fatal(err)
	}
	if got := one("SELECT count(*) FROM accounts WHERE id = 100"); got != "0" {
		t.Errorf("SET sidecar.as_of: %q", got)
	}
	if got := one("SHOW sidecar.as_of"); got != r.lsns[0] {
		t.Errorf("SHOW: %q", got)
	}
	if got := one("SELECT sidecar.version()"); got != r.lsns[0] {
		t.Errorf("sidecar.version() under as_of: %q, want %s", got, r.lsns[0])
	}
	if _, err := conn.Exec(ctx, "RESET sidecar.as_of"); err != nil {
		t.Fatal(err)
	}
	if got := one("SELECT sidecar.version()"); got != r.lsns[1] {
		t.Errorf("sidecar.version(): %q, want %s", got, r.lsns[1])
	}
	if _, err := conn.Exec(ctx, "SET sidecar.as_of = 'HEAD~99999'"); pgCode(err) != "22023" {
		t.Errorf("SET bad ref: %v", err)
	}
	if got := one("SELECT sidecar.resolve('HEAD~1')"); got != r.lsns[0] {
		t.Errorf("resolve: %q", got)
	}
	// options=-c sidecar.as_of=ref at connect.
	u := r.sqlURL + "&options=" + strings.ReplaceAll(url.QueryEscape("-c sidecar.as_of="+r.lsns[0]), "+", "%20")
	c2, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	var n int64
	if err := c2.QueryRow(ctx, "SELECT count(*) FROM accounts WHERE id = 100").Scan(&n); err != nil || n != 0 {
		t.Errorf("options as_of: %d %v", n, err)
	}
	// dbname=app@ref.
	c3, err := pgx.Connect(ctx, strings.Replace(r.sqlURL, "/app?", "/app@"+url.PathEscape("HEAD~1")+"?", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close(ctx)
	var db string
	if err := c3.QueryRow(ctx, "SELECT current_database(), count(*) FROM accounts WHERE id = 100").Scan(&db, &n); err != nil || n != 0 || db != "app" {
		t.Errorf("dbname app@HEAD~1: %s %d %v", db, n, err)
	}
	// sidecar.diff against the history service's own diff.
	var want []string
	_, err = r.hist.Diff(ctx, history.DiffRequest{From: "HEAD~2", To: "HEAD", Tables: []string{"public.accounts"}}, func(e *history.Event) error {
		if e.Type == history.EventRow {
			k, _ := e.Key.Get("id")
			want = append(want, e.Op+"|"+*k)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := queryStrings(t, conn, "SELECT diff_type, id::text FROM sidecar.diff('accounts', 'HEAD~2', 'HEAD')")
	slices.Sort(got)
	slices.Sort(want)
	if len(got) != 3 || len(want) != 3 {
		t.Errorf("diff: got %q, history says %q", got, want)
	}
	for i := range got {
		if i < len(want) && got[i] != want[i] {
			t.Errorf("diff row %d: %q, history says %q", i, got[i], want[i])
		}
	}
	if got := one("SELECT from_name, to_name FROM sidecar.diff('public.accounts', 'HEAD~2', 'HEAD') WHERE id = 1"); got != "n1|renamed" {
		t.Errorf("diff from/to: %q", got)
	}
	if got := one("SELECT rows_added, rows_removed, rows_changed FROM sidecar.diff_stat('HEAD~2', 'HEAD', 'accounts')"); got != "1|1|1" {
		t.Errorf("diff_stat: %q", got)
	}
	if got := one("SELECT count(*) FROM sidecar.log('accounts') WHERE lsn = '" + r.lsns[1] + "'"); got != "1" {
		t.Errorf("log: %q", got)
	}
	if _, err := r.hist.CreateTag(ctx, "before-cleanup", r.lsns[0]); err != nil {
		t.Fatal(err)
	}
	if got := one("SELECT name, lsn FROM sidecar.tags()"); got != "before-cleanup|"+r.lsns[0] {
		t.Errorf("tags: %q", got)
	}
	if got := one("SELECT count(*) FROM accounts AS OF 'before-cleanup'"); got != "50" {
		t.Errorf("AS OF tag: %q", got)
	}
	// Inside BEGIN … COMMIT every statement reads the version the first
	// resolved: a tag moved meanwhile does not move the transaction.
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var v1, v2 string
	if err := tx.QueryRow(ctx, "SELECT count(*)::text FROM accounts AS OF 'before-cleanup'").Scan(&v1); err != nil {
		t.Fatal(err)
	}
	if err := r.hist.DeleteTag(ctx, "before-cleanup"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.hist.CreateTag(ctx, "before-cleanup", r.lsns[1]); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, "SELECT count(*)::text FROM accounts AS OF 'before-cleanup' WHERE id = 100").Scan(&v2); err != nil {
		t.Fatal(err)
	}
	if v1 != "50" || v2 != "0" {
		t.Errorf("in a transaction: %s, %s; want 50, 0 (the version first resolved)", v1, v2)
	}
	tx.Commit(ctx)
	if got := one("SELECT count(*) FROM accounts AS OF 'before-cleanup' WHERE id = 100"); got != "1" {
		t.Errorf("after COMMIT the tag resolves anew: %q", got)
	}
}

func fmtDefault(v any) string { return fmtSprint(v) }

// Issue 23 item 3: `AS OF $1` takes its ref from a bound parameter (what
// psycopg 3 sends for `AS OF %s`), in every pgx execution mode that
// binds parameters; each Bind reads its own ref.
func TestAsOfParameter(t *testing.T) {
	r := historyRig(t)
	ctx := context.Background()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe,
		pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec} {
		conn := connectMode(t, r.sqlURL, mode)
		for _, c := range []struct{ ref, want string }{{"HEAD~2", "n1"}, {"HEAD", "renamed"}, {"HEAD~2", "n1"}, {r.lsns[0], "renamed"}} {
			var name string
			if err := conn.QueryRow(ctx, "SELECT name FROM accounts AS OF $1 WHERE id = $2", c.ref, 1).Scan(&name); err != nil || name != c.want {
				t.Errorf("mode %v, AS OF $1 = %s: %q %v, want %q", mode, c.ref, name, err, c.want)
			}
		}
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM accounts AS OF $1 WHERE id = $2", r.lsns[0], 2).Scan(&n); err != nil || n != 1 {
			t.Errorf("mode %v: count AS OF $1: %d %v", mode, n, err)
		}
		_, err := conn.Exec(ctx, "SELECT * FROM accounts AS OF $1", "nosuchref")
		if pgCode(err) != "22023" {
			t.Errorf("mode %v: AS OF $1 = nosuchref: want 22023, got %v", mode, err)
		}
		conn.Close(ctx)
	}
}

// Issue 23 item 3: sidecar.as_of set from a parameter: SET cannot take
// $1 (in PostgreSQL either), set_config can, and current_setting reads
// it back.
func TestSetConfigAsOf(t *testing.T) {
	ctx := context.Background()
	conn := connectMode(t, historyRig(t).sqlURL, pgx.QueryExecModeCacheStatement) // pgx's default
	defer conn.Close(ctx)
	var set, name, cur string
	if err := conn.QueryRow(ctx, "SELECT set_config('sidecar.as_of', $1, false)", "HEAD~2").Scan(&set); err != nil || set != "HEAD~2" {
		t.Fatalf("set_config: %q %v", set, err)
	}
	if err := conn.QueryRow(ctx, "SELECT name FROM accounts WHERE id = 1").Scan(&name); err != nil || name != "n1" {
		t.Errorf("after set_config sidecar.as_of = HEAD~2: %q %v, want n1", name, err)
	}
	if err := conn.QueryRow(ctx, "SELECT current_setting('sidecar.as_of')").Scan(&cur); err != nil || cur != "HEAD~2" {
		t.Errorf("current_setting: %q %v", cur, err)
	}
	if _, err := conn.Exec(ctx, "SELECT set_config('sidecar.as_of', $1, false)", "nosuchref"); pgCode(err) != "22023" {
		t.Errorf("set_config to a bad ref: want 22023, got %v", err)
	}
	if _, err := conn.Exec(ctx, "SELECT current_setting('no.such')"); pgCode(err) != "42704" {
		t.Errorf("current_setting of an unknown name: want 42704, got %v", err)
	}
	conn.QueryRow(ctx, "SELECT set_config('sidecar.as_of', '', false)").Scan(&set)
	if err := conn.QueryRow(ctx, "SELECT name FROM accounts WHERE id = 1").Scan(&name); err != nil || name != "renamed" {
		t.Errorf("after set_config sidecar.as_of = '': %q %v, want renamed (HEAD)", name, err)
	}
}
