package history_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/client"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/server"
)

// apiFixture serves a small history through a real server with a token.
func apiFixture(t *testing.T) (*history.Service, *history.Remote, string, []string) {
	f := historytest.New(t)
	svc := history.New(f.DB, f.Mirror)
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"v", "text"}, [2]string{"n", "numeric"})
	S := historytest.S
	f.CreateTable(rel, [][]*string{{S("1"), S("a"), S("1.10")}, {S("2"), nil, S("2")}, {S("3"), S(`x"y`), nil}})
	var lsns []string
	for _, fn := range []func(tx *historytest.Tx){
		func(tx *historytest.Tx) { tx.Upsert(rel, []*string{S("2"), S("b"), S("2")}) },
		func(tx *historytest.Tx) {
			tx.Delete(rel, "1")
			tx.Upsert(rel, []*string{S("4"), S("d"), S("0.000001")})
		},
		func(tx *historytest.Tx) { tx.Upsert(rel, []*string{S("2"), S("c"), S("3")}) },
	} {
		lsns = append(lsns, f.Commit(fn).EndLSN.String())
	}
	srv, err := server.Listen(server.Options{Addr: "127.0.0.1:0", Token: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	server.RegisterHistory(srv, svc)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return svc, &history.Remote{T: client.NewDaemon(srv.Addr(), "s3cret")}, srv.Addr(), lsns
}

// render runs a diff-like call through a JSON writer and a table writer.
func render(t *testing.T, run func(fn func(*history.Event) error) error) string {
	t.Helper()
	var b bytes.Buffer
	for _, format := range history.DiffFormats {
		w, err := history.NewDiffWriter(format, &b)
		if err != nil {
			t.Fatal(err)
		}
		if err := run(w.Write); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// TestRemoteMatchesLocal checks that every API call answers the same
// through the daemon as in-process (the CLI prints identical output).
func TestRemoteMatchesLocal(t *testing.T) {
	svc, remote, _, lsns := apiFixture(t)
	ctx := t.Context()
	if _, err := svc.CreateTag(ctx, "v1", lsns[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := remote.CreateBranch(ctx, "b1", "HEAD~1"); err != nil {
		t.Fatal(err)
	}
	out := func(api history.API) string {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(api.Log(ctx, history.LogRequest{}, func(e history.LogEntry) error { return enc.Encode(e) }))
		b.WriteString(render(t, func(fn func(*history.Event) error) error {
			_, err := api.Diff(ctx, history.DiffRequest{From: "v1", To: "HEAD"}, fn)
			return err
		}))
		b.WriteString(render(t, func(fn func(*history.Event) error) error {
			_, err := api.Diff(ctx, history.DiffRequest{From: lsns[0], To: "b1", Stat: true}, fn)
			return err
		}))
		b.WriteString(render(t, func(fn func(*history.Event) error) error {
			_, err := api.Revert(ctx, history.RevertRequest{From: lsns[0], To: lsns[1]}, fn)
			return err
		}))
		g, err := api.Get(ctx, history.ReadRequest{Table: "public.t", PK: []string{"2", "1", "3"}, AsOf: "v1"})
		must(err)
		must(enc.Encode(g))
		w, err := history.NewRowWriter("csv", &b)
		must(err)
		must(api.Scan(ctx, history.ReadRequest{Table: "public.t", From: "2", Limit: 2}, w.Header, w.Row))
		must(w.Close())
		tags, err := api.Tags(ctx)
		must(err)
		brs, err := api.Branches(ctx)
		must(err)
		must(enc.Encode(tags))
		must(enc.Encode(brs))
		return b.String()
	}
	local, rem := out(svc), out(remote)
	if local != rem {
		t.Fatalf("local and remote differ:\n--- local\n%s\n--- remote\n%s", local, rem)
	}
	for _, want := range []string{`"op":"changed"`, `"changed":["v","n"]`, `"2","c","3"`, "BEGIN;", `"n":"0.000001"`, `"rows_changed":`} {
		if !strings.Contains(local, want) {
			t.Errorf("output lacks %s:\n%s", want, local)
		}
	}
}

func TestAPIErrorsAndAuth(t *testing.T) {
	_, remote, addr, _ := apiFixture(t)
	ctx := t.Context()
	status := func(err error) int {
		var ae *client.APIError
		if errors.As(err, &ae) {
			return ae.Status
		}
		t.Fatalf("not an API error: %v", err)
		return 0
	}
	diff := func(from, to string, tables ...string) error {
		_, err := remote.Diff(ctx, history.DiffRequest{From: from, To: to, Tables: tables}, func(*history.Event) error { return nil })
		return err
	}
	cases := []struct {
		name string
		err  error
		code int
		msg  string
	}{
		{"bad ref", diff("HEAD~x", "HEAD"), 400, "HEAD~N"},
		{"unknown ref", diff("nope", "HEAD"), 404, "no tag or branch"},
		{"unknown table", diff("HEAD~1", "HEAD", "public.zz"), 404, "public.t"},
		{"stat and limit", func() error {
			_, err := remote.Diff(ctx, history.DiffRequest{From: "HEAD", To: "HEAD", Stat: true, Limit: 3}, func(*history.Event) error { return nil })
			return err
		}(), 400, "--limit"},
		{"bad where", func() error {
			_, err := remote.Diff(ctx, history.DiffRequest{From: "HEAD", To: "HEAD", Where: "v = 3"}, func(*history.Event) error { return nil })
			return err
		}(), 400, "first primary-key column"},
		{"get key count", func() error {
			_, err := remote.Get(ctx, history.ReadRequest{Table: "public.t"})
			return err
		}(), 400, "key values"},
		{"tag twice", func() error {
			if _, err := remote.CreateTag(ctx, "x", "HEAD"); err != nil {
				return err
			}
			_, err := remote.CreateTag(ctx, "x", "HEAD")
			return err
		}(), 409, "already"},
		{"delete missing branch", remote.DeleteBranch(ctx, "none"), 404, "no branch"},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if got := status(c.err); got != c.code || !strings.Contains(c.err.Error(), c.msg) {
			t.Errorf("%s: %v (status %d), want %d mentioning %q", c.name, c.err, got, c.code, c.msg)
		}
	}
	// No token, wrong token: 401 with a JSON error.
	for _, tok := range []string{"", "wrong"} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/api/log", nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e struct{ Error string }
		err = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != 401 || err != nil || e.Error == "" {
			t.Errorf("token %q: status %d, body error %q (%v)", tok, resp.StatusCode, e.Error, err)
		}
	}
}

// cutTransport answers a POST stream with the given lines and nothing
// more (a daemon that died mid-answer).
type cutTransport struct {
	history.Transport
	lines []string
}

func (c cutTransport) PostStreamJSON(ctx context.Context, path string, body any, fn func(json.RawMessage) error) error {
	for _, l := range c.lines {
		if err := fn(json.RawMessage(l)); err != nil {
			return err
		}
	}
	return nil
}

// TestRemoteMergeNeedsItsSummary: a merge answer cut before its summary
// line is an error, never a clean merge of the events that came.
func TestRemoteMergeNeedsItsSummary(t *testing.T) {
	event := `{"type":"row","table":"public.t","op":"added","key":{"id":"1"},"to":{"id":"1"}}`
	var got int
	r := &history.Remote{T: cutTransport{lines: []string{event}}}
	_, err := r.Revert(t.Context(), history.RevertRequest{From: "a", To: "b"}, func(*history.Event) error { got++; return nil })
	if err == nil || !strings.Contains(err.Error(), "summary") || got != 1 {
		t.Fatalf("cut answer: err %v, %d events", err, got)
	}
	r.T = cutTransport{lines: []string{event, `{"type":"summary","summary":{"conflicts":2}}`}}
	sum, err := r.Merge(t.Context(), history.MergeRequest{Ours: "a", Theirs: "b"}, func(*history.Event) error { return nil })
	if err != nil || sum.Conflicts != 2 {
		t.Fatalf("whole answer: %+v, %v", sum, err)
	}
}
