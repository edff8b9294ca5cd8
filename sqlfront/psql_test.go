package sqlfront_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testenv"
)

func psqlPath(t *testing.T) string {
	return testenv.LookPath(t, "install Debian's postgresql-client package", "psql")
}

// psql runs psql -X -A -t with args against url and returns its output.
func psql(t *testing.T, url string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(psqlPath(t), append([]string{"-X", "-v", "ON_ERROR_STOP=1", "-d", url}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestPsql runs psql's catalog commands and plain queries against
// sidecar, compared with PostgreSQL's output where they must agree.
func TestPsql(t *testing.T) {
	r := historyRig(t)
	run := func(url string, args ...string) string {
		t.Helper()
		out, err := psql(t, url, args...)
		if err != nil {
			t.Fatalf("psql %v: %v\n%s", args, err, out)
		}
		return out
	}
	// Plain queries print exactly what PostgreSQL prints.
	for _, q := range []string{"SELECT id, name, balance FROM accounts WHERE id < 5 ORDER BY id",
		"SELECT count(*), sum(balance), avg(balance) FROM accounts"} {
		if got, want := run(r.sqlURL, "-c", q), run(r.pgURL, "-c", q); got != want {
			t.Errorf("%s:\n%s\nPostgreSQL:\n%s", q, got, want)
		}
	}
	// The catalog commands: the table's description matches
	// PostgreSQL's, its "Publications:" footer included.
	got := run(r.sqlURL, "-c", `\d accounts`)
	want := run(r.pgURL, "-c", `\d accounts`)
	if got != want {
		t.Errorf("\\d accounts:\n%s\nPostgreSQL:\n%s", got, want)
	}
	for cmd, in := range map[string]string{`\dt`: "public | accounts | table", `\d`: "public | marker   | table"} {
		if out := run(r.sqlURL, "-c", cmd); !strings.Contains(out, in) {
			t.Errorf("%s: want %q in\n%s", cmd, in, out)
		}
	}
	// \dn: the schemas' owners are read at copy time.
	if got, want := run(r.sqlURL, "-c", `\dn`), run(r.pgURL, "-c", `\dn`); got != want {
		t.Errorf("\\dn:\n%s\nPostgreSQL:\n%s", got, want)
	}
	// \l: the cluster's databases (TestCatalogDatabases compares them);
	// psql 15's \l fails on 17 and 18 (42703 daticulocale) as there.
	if out, err := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", `\l`); pg.ServerVersion() < 170000 && (err != nil || !strings.Contains(out, "template0")) ||
		pg.ServerVersion() >= 170000 && psqlState(out) != "42703" {
		t.Errorf("\\l: %v\n%s", err, out)
	}
	// AS OF through psql, as the demo does.
	if out := run(r.sqlURL, "-At", "-c", "SELECT count(*) FROM accounts AS OF 'HEAD~1' WHERE id = 2"); out != "1\n" {
		t.Errorf("AS OF: %q", out)
	}
	// A statement PostgreSQL fails: its error (42702, as sql/plan's
	// binder names it; the flat planner's refusal of the FROM list
	// before), not an answer.
	out, err := psql(t, r.sqlURL, "-c", "SELECT id FROM accounts a, accounts b")
	if err == nil || !strings.Contains(out, `column reference "id" is ambiguous`) {
		t.Errorf("unsupported: %v\n%s", err, out)
	}
}
