package sqlfront_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// isolationScript is run statement by statement on PostgreSQL and on
// sidecar; each outcome (value, SQLSTATE, warnings) must be the same.
// PostgreSQL's default is read committed, sidecar's repeatable read (its
// transactions read one version): the script starts by setting it.
var isolationScript = []string{
	"SET default_transaction_isolation = 'repeatable read'",
	"SHOW transaction_isolation",
	"SET TRANSACTION ISOLATION LEVEL READ COMMITTED", // outside a block: a warning, no effect
	"SHOW transaction_isolation",
	"BEGIN", "SHOW transaction_isolation",
	"SET TRANSACTION ISOLATION LEVEL READ COMMITTED", "SHOW transaction_isolation",
	"SELECT 1", "SET TRANSACTION ISOLATION LEVEL READ COMMITTED", // the same level after a query: accepted
	"SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", // another one: 25001
	"ROLLBACK", "SHOW transaction_isolation",
	"BEGIN ISOLATION LEVEL READ UNCOMMITTED", "SHOW transaction_isolation", "COMMIT",
	"START TRANSACTION ISOLATION LEVEL READ COMMITTED, READ ONLY", "SHOW transaction_isolation", "COMMIT",
	"BEGIN", "SET transaction_isolation = 'read committed'", "SELECT current_setting('transaction_isolation')", "COMMIT",
	"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED",
	"SHOW default_transaction_isolation", "SHOW transaction_isolation",
	"BEGIN", "SHOW transaction_isolation", "COMMIT",
	"SET default_transaction_isolation = 'bogus'",
	"RESET default_transaction_isolation",
}

// runScript runs stmts on c, one outcome line each.
func runScript(t *testing.T, url string, stmts []string) []string {
	t.Helper()
	ctx := context.Background()
	var notices []string
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Code) }
	c, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var out []string
	for _, q := range stmts {
		notices = nil
		res, err := c.Exec(ctx, q).ReadAll()
		line := q + " → "
		var pe *pgconn.PgError
		switch {
		case errors.As(err, &pe):
			line += "ERR " + pe.Code
		case err != nil:
			t.Fatalf("%s: %v", q, err)
		default:
			for _, r := range res {
				line += r.CommandTag.String()
				for _, row := range r.Rows {
					line += " " + string(row[0])
				}
			}
		}
		if len(notices) > 0 {
			line += " notices " + strings.Join(notices, ",")
		}
		out = append(out, line)
	}
	return out
}

// Issue 21 (wrong answers): SET TRANSACTION ISOLATION LEVEL and BEGIN
// ISOLATION LEVEL were accepted and ignored (SHOW answered "repeatable
// read" where PostgreSQL says "read committed"). They are honoured as
// PostgreSQL does (the SHOWs, warnings and errors compared), and
// SERIALIZABLE is refused as a hot standby refuses it.
func TestTransactionIsolationSettings(t *testing.T) {
	r := historyRig(t)
	want := runScript(t, r.pgURL, isolationScript)
	got := runScript(t, r.sqlURL, isolationScript)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sidecar %s\n  PostgreSQL %s", got[i], want[i])
		}
	}
	// sidecar's default, as its transactions behave.
	if got := runScript(t, r.sqlURL, []string{"SHOW transaction_isolation", "SHOW default_transaction_isolation"}); got[0] != "SHOW transaction_isolation → SHOW repeatable read" ||
		got[1] != "SHOW default_transaction_isolation → SHOW repeatable read" {
		t.Errorf("defaults: %v", got)
	}
	for _, q := range []string{"BEGIN ISOLATION LEVEL SERIALIZABLE", "SET default_transaction_isolation = serializable"} {
		if got := runScript(t, r.sqlURL, []string{q, "SHOW transaction_isolation"}); got[0] != q+" → ERR 0A000" || !strings.HasSuffix(got[1], "repeatable read") && !strings.HasSuffix(got[1], "ERR 25P02") {
			t.Errorf("%s: %v, want 0A000 as on a hot standby", q, got)
		}
	}
}

// Under READ COMMITTED each statement of a transaction reads the newest
// version; under REPEATABLE READ (the default) every statement reads the
// transaction's first version. Before, both read the first.
func TestTransactionIsolationReads(t *testing.T) {
	url, sqlURL := followLive(t)
	ctx := context.Background()
	read := func(c *pgconn.PgConn, q string) string {
		t.Helper()
		res, err := c.Exec(ctx, q).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		last := res[len(res)-1]
		if len(last.Rows) == 0 {
			return ""
		}
		return string(last.Rows[0][0])
	}
	watch, err := pgconn.Connect(ctx, sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)
	// bump commits a change on PostgreSQL and waits until sidecar serves it.
	bump := func() {
		t.Helper()
		before := read(watch, "SELECT n FROM marker")
		execSQL(t, url, markerStmt)
		for deadline := time.Now().Add(2 * time.Minute); read(watch, "SELECT n FROM marker") == before; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the change did not reach the SQL port in 2 minutes")
			}
		}
	}
	c, err := pgconn.Connect(ctx, sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, tc := range []struct {
		begin        string
		perStatement bool
	}{
		{"BEGIN", false},
		{"BEGIN ISOLATION LEVEL REPEATABLE READ", false},
		{"BEGIN ISOLATION LEVEL READ COMMITTED", true},
		{"BEGIN; SET TRANSACTION ISOLATION LEVEL READ COMMITTED", true},
		{"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED; BEGIN", true},
	} {
		first := read(c, tc.begin+"; SELECT n FROM marker")
		bump()
		second := read(c, "SELECT n FROM marker")
		read(c, "COMMIT; RESET default_transaction_isolation")
		if (first != second) != tc.perStatement {
			t.Errorf("%s: read %s then %s after a commit (per statement: %v)", tc.begin, first, second, tc.perStatement)
		}
	}
}
