package daemon

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/wal"
)

// An apply of the in-memory HEAD that fails part-way (injected between
// the two tables of one transaction) must not leave a half-applied HEAD
// served, nor a HEAD that is never followed again: reads go to the trees
// while the model is rebuilt from them, and once it is ready again reads
// are served from it with PostgreSQL's answer.
func TestHeadApplyFailureRebuildsTheModel(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url,
		"CREATE TABLE fa (id bigint PRIMARY KEY, v int)",
		"CREATE TABLE fb (id bigint PRIMARY KEY, v int)",
		"INSERT INTO fa SELECT g, g % 10 FROM generate_series(1, 1000) g",
		"INSERT INTO fb SELECT g, g % 10 FROM generate_series(1, 1000) g")
	cfg := testConfig(t, url, "public.fa", "public.fb")
	r, model := startWithModel(t, Options{Config: cfg}, io.Discard)
	waitHeadRows(t, model, "public.fa", 1000)
	waitHeadRows(t, model, "public.fb", 1000)
	headPhase := func(want string) func() bool {
		return func() bool { st := r.status(t); return st.Head != nil && st.Head.Phase == want }
	}
	daemontest.Eventually(t, "in-memory HEAD ready", 0, headPhase("ready"))

	var fired atomic.Int32
	model.SetApplyFault(func(table string, _ wal.LSN) error {
		if table == "public.fb" && fired.CompareAndSwap(0, 1) {
			return errors.New("injected apply failure")
		}
		return nil
	})
	execSQL(t, url, "BEGIN; UPDATE fa SET v = v + 1; UPDATE fb SET v = v + 2; COMMIT")
	daemontest.Eventually(t, "the injected failure", 0, func() bool { return fired.Load() == 1 })

	// Every answer, during the rebuild and after it, is PostgreSQL's; once
	// the HEAD is ready again it comes from the HEAD.
	want := map[string]string{"fa": `{"count(*)":"1000","sum(v)":"5500"}`, "fb": `{"count(*)":"1000","sum(v)":"6500"}`}
	const before = `{"count(*)":"1000","sum(v)":"4500"}`
	sawTree := false
	query := func(table string) (read string) {
		code, got := postQuery(t, r.addr, fmt.Sprintf(`{"table":"public.%s","aggs":[{"func":"count"},{"func":"sum","col":"v"}]}`, table))
		if code != 200 {
			t.Fatalf("/api/query %s: %d %s", table, code, got)
		}
		if !strings.HasSuffix(got, want[table]+"\n") && !strings.HasSuffix(got, before+"\n") {
			t.Fatalf("/api/query %s: %s, want the rows before or after the transaction", table, got)
		}
		if strings.Contains(got, `"read":"head"`) {
			return "head"
		}
		sawTree = true
		return "tree"
	}
	daemontest.Eventually(t, "the in-memory HEAD rebuilt, ready and serving both tables again", 0, func() bool {
		st := r.status(t)
		if st.Head == nil || st.Head.Phase != "ready" {
			query("fa")
			return false
		}
		return query("fa") == "head" && query("fb") == "head"
	}, func() string { return fmt.Sprintf("status head %+v, unusable %v", r.status(t).Head, model.Unusable()) })
	if model.Unusable() {
		t.Fatal("the model is still marked unusable after its rebuild")
	}
	for _, table := range []string{"fa", "fb"} {
		_, got := postQuery(t, r.addr, fmt.Sprintf(`{"table":"public.%s","aggs":[{"func":"count"},{"func":"sum","col":"v"}]}`, table))
		if !strings.Contains(got, `"read":"head"`) || !strings.HasSuffix(got, want[table]+"\n") {
			t.Fatalf("after the rebuild, %s: %s, want %s from the HEAD", table, got, want[table])
		}
	}
	t.Logf("reads went to the trees during the rebuild: %v", sawTree)

	// It follows commits again.
	execSQL(t, url, "UPDATE fb SET v = v + 1 WHERE id = 1")
	want["fb"] = `{"count(*)":"1000","sum(v)":"6501"}`
	daemontest.Eventually(t, "the next commit served from the HEAD", 0, func() bool {
		_, got := postQuery(t, r.addr, `{"table":"public.fb","aggs":[{"func":"count"},{"func":"sum","col":"v"}]}`)
		return strings.Contains(got, `"read":"head"`) && strings.HasSuffix(got, want["fb"]+"\n")
	})
}
