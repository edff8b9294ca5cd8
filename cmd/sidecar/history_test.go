package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/server"
)

// historyCLI runs the history commands in-process, as `sidecar` does.
func historyCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return sidecar(t, args...)
}

// cliFixture writes a small history into a data directory, closes it and
// returns a config file pointing at it (no daemon listens, so commands
// open the directory themselves).
func cliFixture(t *testing.T) (string, []string) {
	f, lsns := historyFixture(t)
	f.Close()
	return writeConfig(t, f.Dir, "127.0.0.1:1", ""), lsns
}

// historyFixture is cliFixture's history, left open.
func historyFixture(t *testing.T) (*historytest.Fixture, []string) {
	f := historytest.New(t)
	S := historytest.S
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"v", "text"}, [2]string{"n", "numeric"})
	f.CreateTable(rel, [][]*string{{S("1"), S("a"), S("1.10")}, {S("2"), S("b"), S("2")}, {S("3"), S("c, \"q\""), nil}})
	var lsns []string
	for _, fn := range []func(tx *historytest.Tx){
		func(tx *historytest.Tx) { tx.Upsert(rel, []*string{S("2"), S("B"), S("2")}) },
		func(tx *historytest.Tx) { // the bad change
			tx.Delete(rel, "1")
			tx.Delete(rel, "3")
			tx.Upsert(rel, []*string{S("2"), S("B"), S("0")})
		},
		func(tx *historytest.Tx) {
			tx.Upsert(rel, []*string{S("4"), S("d"), S("0.000001")})
			tx.Upsert(rel, []*string{S("2"), S("B"), S("20")})
		},
	} {
		lsns = append(lsns, f.Commit(fn).EndLSN.String())
	}
	return f, lsns
}

func writeConfig(t *testing.T, dataDir, listen, token string) string {
	file := filepath.Join(t.TempDir(), "sidecar.yaml")
	body := fmt.Sprintf("postgres:\n  url: postgres://u@127.0.0.1:1/db\ntables: [public.t]\ndata_dir: %s\nlisten: %s\nlog:\n  level: warn\n", dataDir, listen)
	if token != "" {
		body += "api:\n  token: " + token + "\n"
	}
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestHistoryCommandsThroughDaemon runs read commands against a daemon's
// API (server.RegisterHistory, with a token) and then, the daemon gone,
// against the data directory: the outputs must be identical.
func TestHistoryCommandsThroughDaemon(t *testing.T) {
	f, lsns := historyFixture(t)
	srv, err := server.Listen(server.Options{Addr: "127.0.0.1:0", Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	server.RegisterHistory(srv, history.New(f.DB, f.Mirror))
	server.RegisterQuery(srv, history.New(f.DB, f.Mirror))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	commands := [][]string{
		{"log"}, {"log", "--format", "json", "--table", "public.t", "-n", "2"},
		{"diff", lsns[0], "HEAD"}, {"diff", lsns[0], "HEAD", "--format", "json"}, {"diff", lsns[0], "HEAD", "--format", "sql"},
		{"diff", lsns[0], "HEAD", "--stat", "--exit-code"}, {"diff", "HEAD~1", "HEAD", "--where", "id > 1", "--limit", "1"},
		{"revert", lsns[0], lsns[1]}, {"revert", lsns[0], lsns[1], "--format", "json"}, {"merge", "HEAD", lsns[0], "--base", lsns[1]},
		{"get", "public.t", "2", "4", "--as-of", "HEAD~1"}, {"scan", "public.t", "--format", "csv", "--as-of", lsns[0]},
		{"scan", "public.t", "--format", "json"}, {"diff", "nope", "HEAD"}, {"tag"}, {"branch"},
		{"scan", "public.t", "--columns", "n,id", "--format", "csv"}, {"get", "public.t", "2", "3", "--columns", "v", "--as-of", lsns[0]},
		{"agg", "public.t", "--count", "--sum", "n", "--max", "v", "--format", "json"}, {"agg", "public.t", "--count", "--as-of", lsns[0], "--where", "id BETWEEN 2 AND 3"},
	}
	type result struct {
		out  string
		code int
	}
	viaDaemon := map[int]result{}
	cfg := writeConfig(t, f.Dir, srv.Addr(), "tok")
	for i, c := range commands {
		out, errOut, code := historyCLI(t, append(c, "--config", cfg)...)
		viaDaemon[i] = result{out, code}
		if code == exitUsage && c[1] != "nope" {
			t.Errorf("%v through the daemon: exit %d: %s", c, code, errOut)
		}
	}
	if _, errOut, code := historyCLI(t, "log", "--config", writeConfig(t, f.Dir, srv.Addr(), "wrong")); code != exitUsage || !strings.Contains(errOut, "401") {
		t.Errorf("wrong token: exit %d, %s", code, errOut)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	f.Close()
	cfg = writeConfig(t, f.Dir, "127.0.0.1:1", "")
	for i, c := range commands {
		out, errOut, code := historyCLI(t, append(c, "--config", cfg)...)
		if d := viaDaemon[i]; d.out != out || d.code != code {
			t.Errorf("%v: daemon exit %d, local exit %d (%s)\n--- daemon\n%s--- local\n%s", c, d.code, code, errOut, d.out, out)
		}
	}
}

func TestHistoryCommands(t *testing.T) {
	cfg, lsns := cliFixture(t)
	type want struct {
		code    int
		stdout  []string
		stderr  []string
		noOut   bool
		exactly string
	}
	cases := []struct {
		args []string
		want want
	}{
		{[]string{"log", "-n", "2"}, want{stdout: []string{"LSN", lsns[2], lsns[1], "public.t 3"}}},
		{[]string{"log", "--format", "json", "-n", "1"}, want{stdout: []string{`"lsn":"` + lsns[2] + `"`, `"rows":2`}}},
		{[]string{"tag", "before", lsns[0]}, want{stdout: []string{"tagged " + lsns[0] + " as before"}}},
		{[]string{"tag"}, want{stdout: []string{"before", lsns[0]}}},
		{[]string{"tag", "before"}, want{code: 2, stderr: []string{"already"}}},
		{[]string{"diff", "before", "HEAD"}, want{stdout: []string{"diff public.t", "-  1   a       1.10", "+  4   d       0.000001", "<  2   B       2 ", ">  2   B       20", `-  3   c, "q"  NULL`}}},
		{[]string{"diff", "before", "HEAD", "--stat"}, want{stdout: []string{"1 rows added, 2 removed, 1 changed"}}},
		{[]string{"diff", "before", "HEAD", "--format", "json", "--where", "id >= 2 AND id < 3"},
			want{stdout: []string{`{"type":"row","table":"public.t","op":"changed","key":{"id":"2"},"from":{"id":"2","v":"B","n":"2"},"to":{"id":"2","v":"B","n":"20"},"changed":["n"]}`}}},
		{[]string{"diff", "HEAD", "HEAD", "--exit-code"}, want{code: 0}},
		{[]string{"diff", "before", "HEAD", "--exit-code", "--format", "sql"}, want{code: 1, stdout: []string{"BEGIN;", `UPDATE "public"."t" SET "n" = '20'::"numeric" WHERE "id" = '2'::"int8";`, "COMMIT;"}}},
		{[]string{"diff", "HEAD~9", "HEAD"}, want{code: 2, noOut: true, stderr: []string{"HEAD~9", "only 3 versions", "the initial copy at"}}},
		{[]string{"diff", "nope", "HEAD"}, want{code: 2, noOut: true, stderr: []string{"no tag or branch", "nearest: before", "Try:"}}},
		{[]string{"diff", "before", "HEAD", "--stat", "--format", "sql"}, want{code: 2, noOut: true, stderr: []string{"--stat"}}},
		{[]string{"diff", "before", "HEAD", "--format", "xml"}, want{code: 2, noOut: true, stderr: []string{"xml"}}},
		{[]string{"diff", "before", "HEAD", "--where", "v = 1"}, want{code: 2, noOut: true, stderr: []string{"first primary-key column"}}},
		{[]string{"diff", "before", "HEAD", "--table", "public.nope"}, want{code: 2, noOut: true, stderr: []string{"public.nope"}}},
		{[]string{"revert", lsns[0], lsns[1]}, want{code: 1, stderr: []string{"conflict (modify/modify)", "o  2  B  20", "t  2  B  2 ", "1 conflicts"}, stdout: []string{"BEGIN;", `INSERT INTO "public"."t" ("id", "v", "n") VALUES ('1'::"int8", 'a'::"text", '1.10'::"numeric");`, `'c, "q"'::"text", NULL`, "COMMIT;"}}},
		{[]string{"revert", lsns[0], lsns[2]}, want{code: 0}},
		{[]string{"merge", "HEAD", lsns[0], "--base", lsns[1], "--branch", "undo"}, want{code: 1, stdout: []string{"2 changes applied", "1 conflicts", "branch undo", "!  conflict (modify/modify)"}}},
		{[]string{"branch"}, want{stdout: []string{"undo", "from " + lsns[2]}}},
		{[]string{"get", "public.t", "1", "4", "9", "--as-of", "undo"}, want{stdout: []string{"id  v  n", "1   a  1.10", "4   d  0.000001"}, stderr: []string{`not found: public.t ["9"]`}}},
		{[]string{"scan", "public.t", "--format", "csv"}, want{exactly: "\"id\",\"v\",\"n\"\n\"2\",\"B\",\"20\"\n\"4\",\"d\",\"0.000001\"\n"}},
		{[]string{"scan", "public.t", "--format", "json", "--as-of", "before", "--from", "2"}, want{exactly: "{\"id\":\"2\",\"v\":\"B\",\"n\":\"2\"}\n{\"id\":\"3\",\"v\":\"c, \\\"q\\\"\",\"n\":null}\n"}},
		{[]string{"scan", "public.t", "--as-of", "@1999-01-01T00:00:00Z"}, want{code: 2, noOut: true, stderr: []string{"before the oldest retained version"}}},
		{[]string{"branch", "--delete", "undo"}, want{stdout: []string{"deleted branch undo"}}},
		{[]string{"tag", "--delete", "before"}, want{stdout: []string{"deleted tag before"}}},
	}
	for _, c := range cases {
		out, errOut, code := historyCLI(t, append(c.args, "--config", cfg)...)
		name := strings.Join(c.args, " ")
		if code != c.want.code {
			t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", name, code, c.want.code, out, errOut)
			continue
		}
		for _, w := range c.want.stdout {
			if !strings.Contains(out, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", name, w, out)
			}
		}
		for _, w := range c.want.stderr {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", name, w, errOut)
			}
		}
		if c.want.noOut && out != "" {
			t.Errorf("%s: printed before failing:\n%s", name, out)
		}
		if c.want.exactly != "" && out != c.want.exactly {
			t.Errorf("%s: stdout\n%q\nwant\n%q", name, out, c.want.exactly)
		}
	}
}
