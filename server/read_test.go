package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/mirror"
)

// TestReadOutputFromStoredBytes: GET /api/get and /api/scan, now written
// straight from the stored row bytes, answer byte for byte what
// encoding/json (SetEscapeHTML(false), no indentation) writes for the
// Service's GetResult and Rows — through the tree and through the
// in-memory HEAD, with and without a column projection, for values that
// need escaping (quotes, control characters, HTML characters, non-ASCII,
// U+2028) and NULLs. The one documented difference from before: get's
// body is compact and does not escape <, >, & (it was indented, escaped).
func TestReadOutputFromStoredBytes(t *testing.T) {
	f := historytest.New(t)
	S := historytest.S
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"v", "text"}, [2]string{"n", "numeric"})
	f.CreateTable(rel, [][]*string{
		{S("1"), S(`a "q" \ <b>&amp;`), S("1.10")},
		{S("2"), S("tab\tnl\n\x01 é 日本 \u2028"), nil},
		{S("3"), nil, S("-0.000001")},
	})
	f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{S("4"), S(""), S("NaN")}) })
	mod := head.New(head.Options{})
	sub, err := f.Mirror.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	deadline := time.Now().Add(30 * time.Second)
	for sub.Delivered() < f.Mirror.Head().EndLSN || !sub.Idle() {
		if time.Now().After(deadline) {
			t.Fatalf("model delivered %s, head %s (%v)", sub.Delivered(), f.Mirror.Head().EndLSN, sub.Err())
		}
		time.Sleep(2 * time.Millisecond)
	}
	ctx := t.Context()
	for _, viaModel := range []bool{false, true} {
		svc := history.New(f.DB, f.Mirror)
		if viaModel {
			svc.SetHead(mod)
		}
		s, err := Listen(Options{Addr: "127.0.0.1:0"})
		if err != nil {
			t.Fatal(err)
		}
		RegisterHistory(s, svc)
		sctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Serve(sctx) }()
		base := "http://" + s.Addr()
		fetch := func(path string, q url.Values) string {
			resp, err := http.Get(base + path + "?" + q.Encode())
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 {
				t.Fatalf("%s %v: %d %s", path, q, resp.StatusCode, b)
			}
			return string(b)
		}
		encode := func(vs ...any) string {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			for _, v := range vs {
				if err := enc.Encode(v); err != nil {
					t.Fatal(err)
				}
			}
			return buf.String()
		}
		served := mod.Served()
		for _, cols := range [][]string{nil, {"v"}, {"n", "id", "n"}} {
			for _, asOf := range []string{"", "HEAD~1"} {
				req := history.ReadRequest{Table: "public.t", AsOf: asOf, PK: []string{"2", "9", "1", "4", "3"}, Columns: cols}
				want, err := svc.Get(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if got := fetch("/api/get", history.ReadQuery(req)); got != encode(want) {
					t.Errorf("model %v: get %v:\n got %s\nwant %s", viaModel, req, got, encode(want))
				}
				req = history.ReadRequest{Table: "public.t", AsOf: asOf, Limit: 10, Columns: cols}
				var vs []any
				err = svc.Scan(ctx, req, func(h history.ReadHeader) error { vs = append(vs, h); return nil },
					func(r *history.Row) error { vs = append(vs, r); return nil })
				if err != nil {
					t.Fatal(err)
				}
				if got := fetch("/api/scan", history.ReadQuery(req)); got != encode(vs...) {
					t.Errorf("model %v: scan %v:\n got %s\nwant %s", viaModel, req, got, encode(vs...))
				}
			}
		}
		if viaModel && mod.Served() == served {
			t.Error("no read went through the model")
		}
		if !strings.Contains(fetch("/api/get", url.Values{"table": {"t"}, "pk": {"1"}}), `<b>&amp;`) {
			t.Error("get escapes HTML characters")
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
