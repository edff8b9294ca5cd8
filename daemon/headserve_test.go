package daemon

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// postQuery posts body to /api/query and returns the status and answer.
func postQuery(t *testing.T, base, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(base+"/api/query", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// startWithModel starts the daemon and returns its in-memory HEAD too.
func startWithModel(t *testing.T, opts Options, logw io.Writer) (*running, *head.Model) {
	t.Helper()
	var model atomic.Pointer[head.Model]
	opts.OnHead = func(m *head.Model) { model.Store(m) }
	r := startOpts(t, opts, logw)
	daemontest.Eventually(t, "the in-memory HEAD handed over", 0, func() bool { return model.Load() != nil })
	return r, model.Load()
}

// waitHeadRows waits until the in-memory HEAD holds rows rows of table.
func waitHeadRows(t *testing.T, m *head.Model, table string, rows int) {
	t.Helper()
	daemontest.Eventually(t, fmt.Sprintf("in-memory HEAD holding %d rows of %s", rows, table), 0,
		func() bool { return m.Len(table) == rows },
		func() string { return fmt.Sprintf("it holds %d", m.Len(table)) })
}

// Issue 21 item 2: after the initial copy, with no commit since, HEAD is
// the copy's LSN, which no batch of the mirror reaches; the in-memory
// HEAD must serve it as soon as it is built, not wait for a first commit.
func TestQuietTableServedFromHeadAfterCopy(t *testing.T) {
	cfg, r, model := quietDaemon(t)
	wantHeadQuery(t, r.addr)
	if st := r.status(t); st.Commits != 0 {
		t.Fatalf("the test wants no commit at all; %d applied", st.Commits)
	}
	// A key read is served by it too (history's get path).
	before := model.Served()
	if code, b := httpGet(t, r.addr+"/api/get?table=public.quiet&pk=7"); code != 200 || !strings.Contains(b, `"v":"7"`) {
		t.Fatalf("get: %d %s", code, b)
	}
	if model.Served() == before {
		t.Errorf("a key read after the copy was not served by the in-memory HEAD")
	}

	// And after a restart, still without a commit.
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	r2, model2 := startWithModel(t, Options{Config: cfg}, io.Discard)
	waitHeadRows(t, model2, "public.quiet", 3000)
	wantHeadQuery(t, r2.addr)
}

// quietDaemon starts a daemon following public.quiet (3000 rows, no
// commit after the copy) and waits until its in-memory HEAD holds them.
func quietDaemon(t *testing.T) (*config.Config, *running, *head.Model) {
	t.Helper()
	url := pg.NewDB(t)
	execSQL(t, url,
		"CREATE TABLE quiet (id bigint PRIMARY KEY, v int)",
		"INSERT INTO quiet SELECT g, g % 10 FROM generate_series(1, 3000) g")
	cfg := testConfig(t, url, "public.quiet")
	r, model := startWithModel(t, Options{Config: cfg}, io.Discard)
	waitHeadRows(t, model, "public.quiet", 3000)
	return cfg, r, model
}

// wantHeadQuery waits (the rig's ceiling at most) for a count+sum of
// public.quiet read from the in-memory HEAD, with the right answer.
func wantHeadQuery(t *testing.T, base string) {
	t.Helper()
	body := `{"table":"public.quiet","aggs":[{"func":"count"},{"func":"sum","col":"v"}]}`
	var got string
	_ = daemontest.Poll(0, func() bool {
		var code int
		code, got = postQuery(t, base, body)
		if code != 200 {
			t.Fatalf("/api/query: %d %s", code, got)
		}
		return strings.Contains(got, `"read":"head"`)
	})
	if !strings.Contains(got, `"read":"head"`) || !strings.HasSuffix(got, `{"count(*)":"3000","sum(v)":"13500"}`+"\n") {
		t.Fatalf("HEAD built, no commit since: want a read from the in-memory HEAD, got\n%s", got)
	}
}

// Issue 21 item 11: the listeners come up before the in-memory HEAD is
// loaded, reads are answered from the trees meanwhile, and status reports
// the HEAD's phase. The loading is held back until the test has seen a
// correct answer from the tree with the HEAD still loading.
func TestServesBeforeHeadLoaded(t *testing.T) {
	cfg, r, _ := quietDaemon(t)
	wantHeadQuery(t, r.addr)
	if err := r.stop(); err != nil { // checkpoints the HEAD: the next start restores it
		t.Fatal(err)
	}

	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	defer open()
	r2, model2 := startWithModel(t, Options{Config: cfg, BeforeHeadLoad: func() { <-release }}, io.Discard)
	st := r2.status(t)
	if st.Head == nil || st.Head.Phase != "loading" || len(model2.Tables()) != 0 {
		t.Fatalf("HEAD held back: status head %+v, model tables %v", st.Head, model2.Tables())
	}
	body := `{"table":"public.quiet","aggs":[{"func":"count"},{"func":"sum","col":"v"}]}`
	var code int
	var got string
	daemontest.Eventually(t, "an answer while the HEAD loads", 0, func() bool {
		code, got = postQuery(t, r2.addr, body)
		if code == 200 && (!strings.Contains(got, `"read":"tree"`) || !strings.HasSuffix(got, `{"count(*)":"3000","sum(v)":"13500"}`+"\n")) {
			t.Fatalf("while the HEAD loads: %s", got)
		}
		return code == 200
	}, func() string { return fmt.Sprintf("no answer while the HEAD loads: %d %s", code, got) })
	open()
	daemontest.Eventually(t, "HEAD ready after its loading was let go", 0, func() bool {
		st = r2.status(t)
		return st.Head != nil && st.Head.Phase == "ready"
	}, func() string { return fmt.Sprintf("HEAD: %+v", st.Head) })
	if !st.Head.Restored || st.Head.Tables != 1 {
		t.Errorf("ready HEAD: %+v, want restored from its checkpoint with 1 table", st.Head)
	}
	wantHeadQuery(t, r2.addr)
}
