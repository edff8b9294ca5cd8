package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/console"
	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// sqlRig is a daemon following public.t of a throwaway cluster, its SQL
// front end on, its API behind testToken; old is a version (an LSN)
// before the changes, wantOld and wantHead PostgreSQL's answers to
// sqlBoxQuery there and now.
type sqlRig struct {
	d                 *daemontest.Daemon
	old               string
	wantOld, wantHead [][]*string
}

const sqlBoxQuery = "SELECT id, v, n, n * 2 AS twice FROM t WHERE id <> 4 ORDER BY id"

func newSQLRig(t *testing.T) *sqlRig {
	t.Helper()
	c, err := pgtest.Start(context.Background(), pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	url := c.NewDB(t)
	daemontest.Exec(t, url, "CREATE TABLE t (id int PRIMARY KEY, v text, n numeric)",
		`INSERT INTO t VALUES (1, 'a', 1.10), (2, '<b>b</b>', 2), (3, NULL, NULL), (4, 'x', 4), (5, 'e', -0.5)`)
	cfg := daemontest.Config(t, url, []string{"public.t"}, "api:\n  token: "+testToken, "sql:\n  listen: "+daemontest.FreeAddr(t)+"\n  statement_timeout: 5s")
	d := daemontest.Start(t, daemontest.Options{PG: url, Token: testToken, Run: func(ctx context.Context, ready func(string)) error {
		return daemon.Run(ctx, daemon.Options{Config: cfg, OnReady: ready})
	}})
	r := &sqlRig{d: d}
	// Two markers: one committed during the copy may be durable before
	// the stream applies it (daemontest.Marker).
	d.Marker(t, "UPDATE t SET v = v WHERE id = 4")
	d.Marker(t, "UPDATE t SET v = v WHERE id = 4")
	r.old = daemontest.InsertLSN(t, url).String()
	r.wantOld = pgRows(t, url, sqlBoxQuery)
	daemontest.Exec(t, url, "UPDATE t SET v = 'changed', n = n + 10 WHERE id = 2", "DELETE FROM t WHERE id = 1",
		"INSERT INTO t VALUES (6, 'new', 6.25)")
	d.WaitHead(t, d.Marker(t, "UPDATE t SET v = v WHERE id = 4"))
	r.wantHead = pgRows(t, url, sqlBoxQuery)
	if slices.EqualFunc(r.wantOld, r.wantHead, func(a, b []*string) bool { return fmtRow(a) == fmtRow(b) }) {
		t.Fatal("the changes changed nothing the query reads")
	}
	return r
}

// pgRows is PostgreSQL's answer as text (the simple protocol's text
// format), null as nil.
func pgRows(t *testing.T, url, sql string) [][]*string {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]*string
	for rows.Next() {
		var row []*string
		for _, v := range rows.RawValues() {
			if v == nil {
				row = append(row, nil)
			} else {
				s := string(v)
				row = append(row, &s)
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func fmtRow(r []*string) string {
	var b strings.Builder
	for i, v := range r {
		if i > 0 {
			b.WriteString("|")
		}
		if v == nil {
			b.WriteString("NULL")
		} else {
			b.WriteString(*v)
		}
	}
	return b.String()
}

func fmtRows(rs [][]*string) string {
	var out []string
	for _, r := range rs {
		out = append(out, fmtRow(r))
	}
	return strings.Join(out, "\n")
}

// postSQL runs a request on POST /api/sql.
func (r *sqlRig) postSQL(t *testing.T, req console.SQLRequest, token string) (int, console.SQLResponse) {
	t.Helper()
	body, _ := json.Marshal(req)
	hr, _ := http.NewRequest("POST", r.d.API+"/api/sql", bytes.NewReader(body))
	if token != "" {
		hr.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out console.SQLResponse
	if res.StatusCode == http.StatusOK {
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
	}
	return res.StatusCode, out
}

// TestSQLBox: POST /api/sql answers what PostgreSQL answered at HEAD and
// at an older version (an LSN, HEAD~N), refuses writes
// and bad refs with their SQLSTATE, stops at the row cap, and is behind
// the token; then the console's SQL page, driven in headless Chromium (a
// query typed, Run clicked), shows those same rows.
func TestSQLBox(t *testing.T) {
	r := newSQLRig(t)
	run := func(req console.SQLRequest) console.SQLResponse {
		t.Helper()
		code, res := r.postSQL(t, req, testToken)
		if code != http.StatusOK {
			t.Fatalf("%+v: HTTP %d", req, code)
		}
		return res
	}
	rowsOf := func(res console.SQLResponse) [][]*string {
		if len(res.Results) != 1 {
			t.Fatalf("want one result set, got %+v", res)
		}
		return res.Results[0].Rows
	}
	t.Run("api", func(t *testing.T) {
		for _, c := range []struct {
			asOf string
			want [][]*string
		}{{"", r.wantHead}, {"HEAD", r.wantHead}, {r.old, r.wantOld}, {"HEAD~1", r.wantHead}, {"HEAD~4", r.wantOld}} {
			res := run(console.SQLRequest{Query: sqlBoxQuery, AsOf: c.asOf})
			if res.Error != nil {
				t.Fatalf("AS OF %q: %+v", c.asOf, res.Error)
			}
			if got := fmtRows(rowsOf(res)); got != fmtRows(c.want) {
				t.Errorf("AS OF %q:\n%s\nPostgreSQL:\n%s", c.asOf, got, fmtRows(c.want))
			}
			if cols := res.Results[0].Columns; len(cols) != 4 || cols[3].Name != "twice" || res.Results[0].Command != fmt.Sprintf("SELECT %d", len(c.want)) {
				t.Errorf("AS OF %q: columns %+v, command %q", c.asOf, cols, res.Results[0].Command)
			}
		}
		for _, c := range []struct{ query, asOf, code string }{
			{"DELETE FROM t", "", "25006"},
			{"SELECT nope FROM t", "", "42703"},
			{"SELECT * FROM t", "no-such-tag", "22023"},
		} {
			res := run(console.SQLRequest{Query: c.query, AsOf: c.asOf})
			if res.Error == nil || res.Error.Code != c.code {
				t.Errorf("%s AS OF %q: error %+v, want SQLSTATE %s", c.query, c.asOf, res.Error, c.code)
			}
		}
		res := run(console.SQLRequest{Query: "SELECT a.id, b.id FROM t a, t b, t c", MaxRows: 3})
		if !res.Truncated || len(res.Results) != 1 || len(res.Results[0].Rows) != 3 || res.Error != nil {
			t.Errorf("row cap 3: truncated %v, %d result sets, error %+v", res.Truncated, len(res.Results), res.Error)
		}
		// The session after a cap is gone: the next request still runs.
		if got := fmtRows(rowsOf(run(console.SQLRequest{Query: "SELECT count(*) FROM t"}))); got != fmt.Sprint(len(r.wantHead)+1) {
			t.Errorf("count after a capped run: %s", got)
		}
		// A statement past sql.statement_timeout (5 s here) is cancelled,
		// also when its text turns the timeout off first (the box's own
		// deadline, 5 s later, would close the session under it anyway).
		slow := "SELECT count(*) FROM t a, t b, t c, t d, t e, t f, t g, t h, t i, t j, t k, t l"
		for _, q := range []string{slow, "SET statement_timeout = 0; " + slow} {
			start := time.Now()
			res := run(console.SQLRequest{Query: q})
			if res.Error == nil || res.Error.Code != "57014" || time.Since(start) > 90*time.Second {
				t.Fatalf("%s: error %+v after %s, want 57014 within the box's deadline", q, res.Error, time.Since(start))
			}
			t.Logf("%s: %s after %s", q, res.Error.Message, time.Since(start).Round(time.Millisecond))
		}
		if code, _ := r.postSQL(t, console.SQLRequest{Query: "SELECT 1"}, ""); code != http.StatusUnauthorized {
			t.Errorf("without the token: HTTP %d, want 401", code)
		}
	})
	t.Run("chromium", func(t *testing.T) {
		bin := chromium(t)
		b := newBrowser(t, bin)
		b.navigate(r.d.API + "/console/#sql?token=" + testToken)
		b.waitFor("the SQL page", `document.getElementById("main").dataset.ready === "sql" && document.querySelector("#sqlform textarea")`)
		shown := func(what, asOf string, want [][]*string) {
			t.Helper()
			b.eval(`delete document.getElementById("main").dataset.ready`, nil)
			b.typeInto("#sqlform textarea", sqlBoxQuery)
			b.typeInto(`#sqlform input[name="as_of"]`, asOf)
			b.click("#run")
			b.waitFor(what+" run", `document.getElementById("main").dataset.ready === "sql" && document.getElementById("sqlsummary")`)
			var page struct {
				Rows    [][]*string
				Summary string
				Errors  string
				Error   *string
			}
			b.eval(`({rows: Array.from(document.querySelectorAll("table.sqlrows tr")).slice(1).map(tr => Array.from(tr.cells).map(td => td.classList.contains("null") ? null : td.textContent)),
				summary: document.getElementById("sqlsummary").textContent, errors: document.getElementById("errors").textContent,
				error: document.getElementById("sqlerror") && document.getElementById("sqlerror").textContent})`, &page)
			if page.Error != nil || page.Errors != "" {
				t.Fatalf("%s: the page shows an error: %v %q", what, *page.Error, page.Errors)
			}
			if got := fmtRows(page.Rows); got != fmtRows(want) {
				t.Errorf("%s: the page shows\n%s\nPostgreSQL answered\n%s", what, got, fmtRows(want))
			}
			wantSummary := "at HEAD: "
			if asOf != "" {
				wantSummary = "AS OF " + asOf + ": "
			}
			if !strings.HasPrefix(page.Summary, wantSummary+fmt.Sprintf("%d rows", len(want))) {
				t.Errorf("%s: summary %q", what, page.Summary)
			}
		}
		shown("HEAD", "", r.wantHead)
		shown("AS OF "+r.old, r.old, r.wantOld)
		// An error is shown with its SQLSTATE, not as a page error.
		b.eval(`delete document.getElementById("main").dataset.ready`, nil)
		b.typeInto("#sqlform textarea", "DELETE FROM t")
		b.click("#run")
		b.waitFor("the refused write", `document.getElementById("main").dataset.ready === "sql" && document.getElementById("sqlerror")`)
		var msg string
		b.eval(`document.getElementById("sqlerror").textContent`, &msg)
		if !strings.Contains(msg, "25006") {
			t.Errorf("a write: the page shows %q, want SQLSTATE 25006", msg)
		}
		if errs := b.errors(); len(errs) > 0 {
			t.Errorf("console messages:\n%s", strings.Join(errs, "\n"))
		}
	})
}
