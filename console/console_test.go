package console_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/internal/testenv"
	"github.com/sidecar-dev/sidecar/server"
)

const testToken = "console-test-token"

// fixture is a daemon's API over a small history: three versions of
// public.t (a change of row 2, a delete of 1 and 3, an insert of 4) and a
// stand-in /api/status (the daemon's, which this package cannot import).
type fixture struct {
	base string
	lsns []string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	f := historytest.New(t)
	S := historytest.S
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"v", "text"}, [2]string{"n", "numeric"})
	f.CreateTable(rel, [][]*string{{S("1"), S("a"), S("1.10")}, {S("2"), S("b"), S("2")}, {S("3"), S("<b>c</b>"), nil}})
	var lsns []string
	for _, fn := range []func(tx *historytest.Tx){
		func(tx *historytest.Tx) { tx.Upsert(rel, []*string{S("2"), S("b"), S("20")}) },
		func(tx *historytest.Tx) { tx.Delete(rel, "1"); tx.Delete(rel, "3") },
		func(tx *historytest.Tx) { tx.Upsert(rel, []*string{S("4"), S("d"), S("0.5")}) },
	} {
		lsns = append(lsns, f.Commit(fn).EndLSN.String())
	}
	svc := history.New(f.DB, f.Mirror)
	if _, err := svc.CreateTag(t.Context(), "before-delete", lsns[0]); err != nil {
		t.Fatal(err)
	}
	s, err := server.Listen(server.Options{Addr: "127.0.0.1:0", Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	server.RegisterHistory(s, svc)
	s.HandleAPI("GET /api/status", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"phase":"streaming","connected":true,"slot":{"name":"sidecar","wal_status":"reserved","active":true},
			"received_lsn":"`+lsns[2]+`","durable_lsn":"`+lsns[2]+`","lag_bytes":0,"lag_seconds":0,"reconnects":0,"commits_applied":3,
			"tables":[{"name":"public.t","state":"ready","rows":2,"copied_at":"0/1000010"}],
			"verify":{"at":"2026-12-04T06:00:00Z","interval":"1h","lsn":"`+lsns[2]+`","result":"ok"}}`)
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("serve: %v", err)
		}
	})
	return fixture{base: "http://" + s.Addr(), lsns: lsns}
}

// TestConsoleServedWithoutTheNetwork: the console's files come from the
// binary, / leads to them, they name no other host (no CDN: it works
// offline), and the data stays behind the token.
func TestConsoleServedWithoutTheNetwork(t *testing.T) {
	fx := newFixture(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(fx.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/console/" {
		t.Errorf("GET /: %d to %q, want a redirect to /console/", res.StatusCode, res.Header.Get("Location"))
	}
	for path, want := range map[string]string{"/console/": "<title>sidecar console</title>", "/console/app.js": "function renderDiff", "/console/style.css": "tr.changed"} {
		res, err := http.Get(fx.base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d, body lacks %q", path, res.StatusCode, want)
		}
	}
	res, err = http.Get(fx.base + "/api/log")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /api/log without the token: %d, want 401", res.StatusCode)
	}
	external := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)
	err = fs.WalkDir(os.DirFS("assets"), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(filepath.Join("assets", path))
		if err != nil {
			return err
		}
		if m := external.Find(data); m != nil {
			t.Errorf("assets/%s refers to another host (%s): the console must work offline", path, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDiffSQLOverTheAPI: GET /api/diff?format=sql is the patch the CLI
// prints (without foreign-key ordering).
func TestDiffSQLOverTheAPI(t *testing.T) {
	fx := newFixture(t)
	req, _ := http.NewRequest("GET", fx.base+"/api/diff?format=sql&from="+fx.lsns[0]+"&to=HEAD", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{"BEGIN;", `DELETE FROM "public"."t" WHERE "id" = '1'::"int8";`, `INSERT INTO "public"."t"`, "COMMIT;"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("patch lacks %q:\n%s", want, body)
		}
	}
	req, _ = http.NewRequest("GET", fx.base+"/api/diff?format=sql&from=nope&to=HEAD", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	if res, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("patch of an unknown ref: %d, want 404 before any output", res.StatusCode)
	}
}

// chromium finds Debian's chromium, or skips naming the package.
func chromium(t *testing.T) string {
	t.Helper()
	return testenv.LookPath(t, "apt-get install chromium (Debian's package) to run the console's browser tests", "chromium", "chromium-browser")
}

// dumpDOM loads url in headless Chromium, lets the page's scripts and
// fetches finish (virtual time), and returns the DOM and Chromium's log,
// which holds the page's console messages.
func dumpDOM(t *testing.T, bin, url string) (dom, log string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0", "--virtual-time-budget=20000", "--dump-dom", url)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", url, err, stderr.String())
	}
	return string(out), stderr.String()
}

// consoleErrors are the page's own errors in Chromium's log: console
// messages from the console's scripts, and uncaught exceptions.
func consoleErrors(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "CONSOLE") || strings.Contains(l, "Uncaught") {
			out = append(out, l)
		}
	}
	return out
}

var tags = regexp.MustCompile(`<[^>]*>`)

// text is the DOM's text, tags dropped and whitespace collapsed, for
// comparing what a person reads.
func text(dom string) string {
	return strings.Join(strings.Fields(tags.ReplaceAllString(dom, " ")), " ")
}

// TestConsolePagesInChromium loads every page of the console in headless
// Chromium against a real history: each renders its data (compared as DOM
// text), the diff of a known change shows its rows with the changed column
// marked, and no page logs an error.
func TestConsolePagesInChromium(t *testing.T) {
	bin := chromium(t)
	fx := newFixture(t)
	pages := []struct {
		hash  string
		wants []string
	}{
		{"tables", []string{"public.t", "ready", "streaming", "commits applied 3"}},
		{"log", []string{fx.lsns[2], fx.lsns[1], fx.lsns[0], "before-delete", "public.t 2", "initial copy"}},
		{"log?table=public.t&n=1", []string{fx.lsns[2], "1 versions shown"}},
		{"diff?from=" + fx.lsns[0] + "&to=HEAD", []string{"public.t 1 2 0", "- 1 a 1.10", "- 3 <b>c</b> NULL", "+ 4 d 0.5", "SQL patch"}},
		{"diff?from=before-delete&to=" + fx.lsns[0], []string{"No differences."}},
		{"verify", []string{"result ok", "Verify now"}},
		{"read?table=public.t&as_of=before-delete", []string{"AS OF before-delete", "1 a 1.10", "2 b 20", "3 <b>c</b> NULL"}},
		{"sql", []string{"query (Ctrl+Enter runs)", "AS OF", "Run", "Runs on the daemon's SQL front end"}}, // running queries: TestSQLBox
	}
	for _, p := range pages {
		dom, log := dumpDOM(t, bin, fx.base+"/console/#"+p.hash+sep(p.hash)+"token="+testToken)
		got := htmlUnescape(text(dom))
		if !strings.Contains(dom, `data-ready=`) {
			t.Errorf("#%s never finished rendering:\n%s", p.hash, got)
		}
		for _, w := range p.wants {
			if !strings.Contains(got, w) {
				t.Errorf("#%s: page text lacks %q:\n%s", p.hash, w, got)
			}
		}
		if m := regexp.MustCompile(`<div id="errors"[^>]*>(.*?)</div>\s*<form`).FindStringSubmatch(dom); m == nil || m[1] != "" {
			t.Errorf("#%s: the page shows errors: %v", p.hash, m)
		}
		if errs := consoleErrors(log); len(errs) > 0 {
			t.Errorf("#%s: console messages:\n%s", p.hash, strings.Join(errs, "\n"))
		}
	}
	// The changed row: both sides, the changed column marked.
	dom, _ := dumpDOM(t, bin, fx.base+"/console/#diff?from=HEAD~3&to="+fx.lsns[0]+"&token="+testToken)
	if !regexp.MustCompile(`<tr class="changed" data-op="changed"><td class="mono">&lt;</td><td class="mono">2</td><td class="mono">b</td><td class="mono x">2</td></tr>`).MatchString(dom) ||
		!strings.Contains(dom, `<td class="mono x">20</td>`) {
		t.Errorf("the changed row of the diff is not shown with its changed column marked:\n%s", dom)
	}
	// Without the token the data is refused and the page asks for it.
	dom, _ = dumpDOM(t, bin, fx.base+"/console/#log")
	if got := text(dom); !strings.Contains(got, "the API wants a token") || strings.Contains(dom, fx.lsns[2]) {
		t.Errorf("without a token: %s", got)
	}
}

func sep(hash string) string {
	if strings.Contains(hash, "?") {
		return "&"
	}
	return "?"
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&quot;", `"`, "&#39;", "'").Replace(s)
}

// TestScreenshot writes a screenshot of the diff page when
// SIDECAR_CONSOLE_SHOT names a PNG path (a person's look; not run in CI).
func TestScreenshot(t *testing.T) {
	path := os.Getenv("SIDECAR_CONSOLE_SHOT")
	if path == "" {
		t.Skip("SIDECAR_CONSOLE_SHOT not set")
	}
	bin := chromium(t)
	fx := newFixture(t)
	out, err := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+t.TempDir(),
		"--virtual-time-budget=20000", "--window-size=1100,800", "--screenshot="+path,
		fx.base+"/console/#diff?from=HEAD~3&to=HEAD&token="+testToken).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
