package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/server"
)

// TestQueryRoute: POST /api/query answers a header naming the version read,
// then one line per group; bad requests are 400 and unknown tables 404
// before any line.
func TestQueryRoute(t *testing.T) {
	f := historytest.New(t)
	svc := history.New(f.DB, f.Mirror)
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"g", "int4"}, [2]string{"v", "text"})
	S := historytest.S
	f.CreateTable(rel, [][]*string{{S("1"), S("1"), S("a")}, {S("2"), S("1"), S("b")}, {S("3"), S("2"), nil}})
	lsn := f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{S("4"), S("2"), S("d")}) }).EndLSN.String()
	srv, err := server.Listen(server.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	server.RegisterQuery(srv, svc)
	url := serveUntilCleanup(t, srv) + "/api/query"
	post := func(body string) (int, string) {
		resp, err := http.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := post(`{"table":"public.t","aggs":[{"func":"count"},{"func":"count","col":"v"},{"func":"max","col":"v"}],"group_by":["g"]}`)
	want := `{"table":"public.t","lsn":"` + lsn + `","ref":"HEAD","columns":[{"name":"g","type":"integer"},{"name":"count(*)","type":"bigint"},{"name":"count(v)","type":"bigint"},{"name":"max(v)","type":"text"}],"read":"tree"}
{"g":"1","count(*)":"2","count(v)":"2","max(v)":"b"}
{"g":"2","count(*)":"2","count(v)":"1","max(v)":"d"}
`
	if code != 200 || body != want {
		t.Errorf("got %d\n%s\nwant\n%s", code, body, want)
	}
	for _, c := range []struct {
		body string
		code int
		msg  string
	}{
		{`{"table":"public.t","aggs":[{"func":"sum","col":"v"}]}`, 400, "sum(text) does not exist"},
		{`{"table":"public.t","aggs":[{"func":"count"}],"where":{"op":"=","col":"nope","values":["1"]}}`, 400, `no column \"nope\"`},
		{`{"table":"public.nope","aggs":[{"func":"count"}]}`, 404, "public.nope"},
		{`{"aggs":[{"func":"count"}]}`, 400, "table is required"},
		{`{"table":"public.t","aggz":[]}`, 400, "unknown field"},
	} {
		code, body := post(c.body)
		if code != c.code || !strings.Contains(body, c.msg) {
			t.Errorf("%s: got %d %s, want %d %q", c.body, code, body, c.code, c.msg)
		}
	}
}

// TestQueryRouteFromHead: with the in-memory HEAD set on the service,
// POST /api/query at HEAD is answered from the model (read "head") at the
// version HEAD resolves to, with the same rows as the tree; as_of reads the
// tree; bad requests are still 400 before any line.
func TestQueryRouteFromHead(t *testing.T) {
	f := historytest.New(t)
	svc := history.New(f.DB, f.Mirror)
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"g", "int4"}, [2]string{"v", "text"})
	S := historytest.S
	f.CreateTable(rel, [][]*string{{S("1"), S("1"), S("a")}, {S("2"), S("1"), S("b")}, {S("3"), S("2"), nil}})
	first := f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{S("4"), S("2"), S("d")}) }).EndLSN
	end := f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{S("5"), S("3"), S("e")}) }).EndLSN
	model := head.New(head.Options{})
	sub, err := f.Mirror.Subscribe(model, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	for deadline := time.Now().Add(10 * time.Second); model.LSN() < end; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("model at %s, want %s", model.LSN(), end)
		}
	}
	svc.SetHead(model)
	srv, err := server.Listen(server.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	server.RegisterQuery(srv, svc)
	url := serveUntilCleanup(t, srv) + "/api/query"
	post := func(body string) (int, string) {
		resp, err := http.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	cols := `"columns":[{"name":"g","type":"integer"},{"name":"count(*)","type":"bigint"},{"name":"max(v)","type":"text"}]`
	for _, c := range []struct{ asOf, lsn, read, rows string }{
		{"", end.String(), "head", `{"g":"1","count(*)":"2","max(v)":"b"}
{"g":"2","count(*)":"2","max(v)":"d"}
{"g":"3","count(*)":"1","max(v)":"e"}
`},
		{first.String(), first.String(), "tree", `{"g":"1","count(*)":"2","max(v)":"b"}
{"g":"2","count(*)":"2","max(v)":"d"}
`},
	} {
		body := `{"table":"public.t","aggs":[{"func":"count"},{"func":"max","col":"v"}],"group_by":["g"],"as_of":"` + c.asOf + `"}`
		ref := "HEAD"
		if c.asOf != "" {
			ref = c.asOf
		}
		want := `{"table":"public.t","lsn":"` + c.lsn + `","ref":"` + ref + `",` + cols + `,"read":"` + c.read + `"}` + "\n" + c.rows
		if code, got := post(body); code != 200 || got != want {
			t.Errorf("as of %q: got %d\n%s\nwant\n%s", c.asOf, code, got, want)
		}
	}
	// A key range at HEAD (through the index) and a bad column.
	if code, got := post(`{"table":"public.t","aggs":[{"func":"count"}],"where":{"op":"between","col":"id","values":["2","4"]}}`); code != 200 || !strings.Contains(got, `"read":"head"`) || !strings.HasSuffix(got, `{"count(*)":"3"}`+"\n") {
		t.Errorf("key range: got %d %s", code, got)
	}
	if code, got := post(`{"table":"public.t","aggs":[{"func":"sum","col":"nope"}]}`); code != 400 || !strings.Contains(got, `no column \"nope\"`) {
		t.Errorf("bad column: got %d %s", code, got)
	}
}
