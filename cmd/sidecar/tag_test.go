package main

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTagRightAfterCopy is the first real workflow: start the sidecar, tag,
// run the migration. With no write after the initial copy, the copied
// state is HEAD: `tag before-migration`, `get --as-of HEAD`, `diff`, `log`
// and `tag` work on it through the daemon and, the daemon stopped, on the
// data directory; after the migration the tag still reads the copy.
func TestTagRightAfterCopy(t *testing.T) {
	url := pg.NewDB(t)
	mustExec(t, url,
		"CREATE TABLE accounts (id int PRIMARY KEY, owner text NOT NULL)",
		"INSERT INTO accounts SELECT g, 'owner ' || g FROM generate_series(1, 100) g",
		"CREATE TABLE notes (id int PRIMARY KEY, body text)",
		"INSERT INTO notes VALUES (1, 'first')")
	file, _ := runConfig(t, url, "public.accounts, public.notes")
	p := sidecarProcess(t, "run", "--config", file)
	base := p.waitListen(t)
	listen := strings.TrimPrefix(base, "http://")
	waitFor(t, "readyz 200 (copy done)", 60*time.Second, func() bool { code, _ := httpBody(t, base+"/readyz"); return code == 200 })
	cli := func(args ...string) (string, string, int) {
		return sidecar(t, append(args, "--config", file, "--listen", listen)...)
	}
	expect := func(what string, code int, out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", what, w, out)
			}
		}
		if code != 0 {
			t.Errorf("%s: exit %d\n%s", what, code, out)
		}
	}

	out, errOut, code := cli("tag", "before-migration")
	expect("tag before-migration through the daemon", code, out+errOut, "as before-migration")
	out, errOut, code = cli("get", "public.accounts", "7", "--as-of", "HEAD")
	expect("get --as-of HEAD", code, out+errOut, "owner 7")
	out, errOut, code = cli("diff", "before-migration", "HEAD", "--exit-code")
	expect("diff before-migration HEAD", code, out+errOut)
	out, errOut, code = cli("log")
	expect("log with no commit", code, out+errOut, "initial copy: public.accounts 100, public.notes 1", "before-migration")
	if lines := strings.Count(strings.TrimSpace(out), "\n"); lines != 1 {
		t.Errorf("log with no commit: want a header and the copy, got:\n%s", out)
	}
	out, errOut, code = cli("tag")
	expect("tag list", code, out+errOut, "before-migration")

	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("stop: exit %d\n%s", code, p.output())
	}
	// The daemon stopped: the same reads from the data directory.
	out, errOut, code = cli("get", "public.notes", "1", "--as-of", "before-migration")
	expect("offline get --as-of the tag", code, out+errOut, "first")
	out, errOut, code = cli("scan", "public.accounts", "--as-of", "HEAD", "--limit", "3", "--format", "csv")
	expect("offline scan --as-of HEAD", code, out+errOut, "owner 1", "owner 3")
	out, errOut, code = cli("diff", "HEAD", "before-migration", "--exit-code")
	expect("offline diff", code, out+errOut)
	// A collection with nothing but the copy keeps it whole.
	out, errOut, code = cli("gc")
	expect("offline gc right after the copy", code, out+errOut)
	out, errOut, code = cli("get", "public.accounts", "100", "--as-of", "HEAD")
	expect("get after gc", code, out+errOut, "owner 100")

	// The migration, applied by a new start: HEAD moves on, the tag stays.
	p = sidecarProcess(t, "run", "--config", file)
	base = p.waitListen(t)
	listen = strings.TrimPrefix(base, "http://")
	mustExec(t, url, "UPDATE accounts SET owner = 'migrated' WHERE id = 7")
	waitFor(t, "the migration applied", 60*time.Second, func() bool {
		out, _, _ := cli("get", "public.accounts", "7")
		return strings.Contains(out, "migrated")
	})
	out, errOut, code = cli("diff", "before-migration", "HEAD", "--format", "sql")
	expect("diff before-migration HEAD after the migration", code, out+errOut, "migrated")
	out, errOut, code = cli("diff", "HEAD~1", "HEAD", "--format", "sql")
	expect("HEAD~1 is the copy", code, out+errOut, "migrated")
	out, errOut, code = cli("get", "public.accounts", "7", "--as-of", "before-migration")
	expect("the tag still reads the copy", code, out+errOut, "owner 7")
	out, errOut, code = cli("log", "--format", "json")
	expect("log after the migration", code, out+errOut, `"initial_copy":true`)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.Contains(lines[1], "before-migration") || strings.Contains(lines[0], "initial_copy") {
		t.Errorf("log after the migration: want the commit, then the tagged copy:\n%s", out)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(t, 60*time.Second)
}
