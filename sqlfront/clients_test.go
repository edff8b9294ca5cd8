package sqlfront_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testenv"
)

// debianPython is Debian's python3 (psycopg packages are installed for
// it; the python3 on PATH may be another one).
const debianPython = "/usr/bin/python3"

func needPython(t *testing.T, module, pkg string) {
	t.Helper()
	if err := exec.Command(debianPython, "-c", "import "+module).Run(); err != nil {
		testenv.Missing(t, "Python module "+module+" (for "+debianPython+")", "install Debian's "+pkg+" package")
	}
}

func runPython(t *testing.T, script string, args ...string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "client.py")
	if err := os.WriteFile(f, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(debianPython, append([]string{f}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return string(out)
}

// psycopg 3 sends BEGIN first (autocommit off), binds Python ints as
// int2/int4/int8 with binary parameters, and reads numeric as Decimal.
const psycopg3Script = `
import sys, psycopg
with psycopg.connect(sys.argv[1]) as conn:
    cur = conn.cursor()
    cur.execute("SELECT id, name, balance FROM accounts WHERE id = %s", (3,))
    print(cur.fetchall())
    cur.execute("SELECT count(*) FROM accounts WHERE id BETWEEN %s AND %s", (1, 10))
    print(cur.fetchone()[0])
    print(conn.info.transaction_status.name)
    cur.execute("SELECT count(*) FROM accounts AS OF 'HEAD~1'")
    print(cur.fetchone()[0])
    try:
        cur.execute("DELETE FROM accounts")
    except psycopg.Error as e:
        print(e.sqlstate)
    conn.rollback()
    cur = conn.cursor(binary=True)
    cur.execute("SELECT id, balance, name FROM accounts WHERE id = %s", (4,))
    print(cur.fetchall())
    cur = conn.cursor()
    for ref in ("HEAD~2", "HEAD"):
        cur.execute("SELECT name FROM accounts AS OF %s WHERE id = %s", (ref, 1))
        print(cur.fetchone()[0])
`

func TestPsycopg3(t *testing.T) {
	needPython(t, "psycopg", "python3-psycopg")
	r := historyRig(t)
	out := runPython(t, psycopg3Script, r.sqlURL)
	want := "[(3, 'n3', Decimal('3.00'))]\n9\nINTRANS\n50\n25006\n[(4, Decimal('4.00'), 'n4')]\nn1\nrenamed\n"
	if out != want {
		t.Errorf("psycopg 3:\n%s\nwant\n%s", out, want)
	}
}

const psycopg2Script = `
import sys, psycopg2
conn = psycopg2.connect(sys.argv[1])
cur = conn.cursor()
cur.execute("SELECT id, name, balance FROM accounts WHERE id = %s", (3,))
print(cur.fetchall())
cur.execute("SELECT name FROM accounts WHERE name LIKE %s ORDER BY id LIMIT 2", ("n1%",))
print(cur.fetchall())
print([d.name for d in cur.description])  # id 1 was renamed
conn.rollback()
`

func TestPsycopg2(t *testing.T) {
	needPython(t, "psycopg2", "python3-psycopg2")
	r := historyRig(t)
	out := runPython(t, psycopg2Script, r.sqlURL)
	want := "[(3, 'n3', Decimal('3.00'))]\n[('n10',), ('n11',)]\n['name']\n"
	if strings.TrimSpace(out) != strings.TrimSpace(want) {
		t.Errorf("psycopg2:\n%s\nwant\n%s", out, want)
	}
}

// Issue 23 item 3: server-side cursors answer as PostgreSQL's: the same
// statements in the same order give the same rows and command tags.
func TestCursors(t *testing.T) {
	r := historyRig(t)
	script := []string{
		"BEGIN",
		"DECLARE c CURSOR FOR SELECT id, name FROM accounts WHERE id <= 10 ORDER BY id",
		"FETCH 3 FROM c",
		"FETCH NEXT FROM c",
		"MOVE FORWARD 2 IN c",
		"FETCH FORWARD 2 FROM c",
		"FETCH ALL FROM c",
		"FETCH 1 FROM c",
		"DECLARE h CURSOR WITH HOLD FOR SELECT count(*) FROM accounts",
		"COMMIT",
		"FETCH ALL FROM h",
		"CLOSE h",
		"FETCH 1 FROM c",
	}
	want, got := cursorScript(t, r.pgURL, script), cursorScript(t, r.sqlURL, script)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("cursors:\n%s\nPostgreSQL:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// psycopg 3's named (server-side) cursors: DECLARE through the extended
// protocol with parameters, Describe of the cursor's portal, FETCH
// FORWARD n.
const psycopg3NamedCursor = `
import sys, psycopg
with psycopg.connect(sys.argv[1]) as conn:
    with conn.cursor(name="named") as cur:
        cur.itersize = 4
        cur.execute("SELECT id, name FROM accounts WHERE id <= %s ORDER BY id", (9,))
        print([d.name for d in cur.description])
        print(cur.fetchmany(2))
        print(len(list(cur)))
    with conn.cursor(name="held", withhold=True) as cur:
        cur.execute("SELECT count(*) FROM accounts AS OF %s", ("HEAD~2",))
        print(cur.fetchone())
`

func TestPsycopg3NamedCursor(t *testing.T) {
	needPython(t, "psycopg", "python3-psycopg")
	r := historyRig(t)
	got := runPython(t, psycopg3NamedCursor, r.sqlURL)
	if wantOut := "['id', 'name']\n[(1, 'renamed'), (3, 'n3')]\n6\n(50,)\n"; got != wantOut {
		t.Errorf("psycopg 3 named cursor:\n%s\nwant\n%s", got, wantOut)
	}
}
