package mirror

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestResyncWindowHistory (issue 16.3): while one table is resynced,
// transactions keep committing on it and on another table. Every
// transaction that changed the other table must be a version naming it
// (its counter reads k, k+1, … across those versions), and no version may
// present a transaction as having changed nothing.
func TestResyncWindowHistory(t *testing.T) {
	e := newE2E(t, Options{}, []string{"public.s", "public.other"},
		`CREATE TABLE s (id int PRIMARY KEY, v text)`, `CREATE TABLE other (id int PRIMARY KEY, n bigint NOT NULL)`,
		`INSERT INTO other VALUES (1, 0)`,
		`INSERT INTO s SELECT g, 'v' || g FROM generate_series(1, 20000) g`)
	e.start()
	from := e.sync()
	var others, onlyS int // written by the writer, read after it stopped
	w := startWriter(t, e.url, func(ctx context.Context, conn *pgx.Conn, i int) error {
		var sqls []string
		switch i % 3 {
		case 0: // the other table only
			sqls = []string{`UPDATE other SET n = n + 1 WHERE id = 1`}
			others++
		case 1: // both
			sqls = []string{`UPDATE other SET n = n + 1 WHERE id = 1`, `UPDATE s SET v = v || '.' WHERE id = 5`}
			others++
		default: // the resynced table only
			sqls = []string{`UPDATE s SET v = v || '+' WHERE id = 7`}
			onlyS++
		}
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			for _, q := range sqls {
				if _, err := tx.Exec(ctx, q); err != nil {
					return err
				}
			}
			return nil
		})
	})
	w.await(t, 10)
	if err := e.m.MarkResync(t.Context(), "public.s", "test"); err != nil {
		t.Fatal(err)
	}
	w.await(t, 20) // changes to s are held meanwhile
	at, err := replication.Resync(t.Context(), replication.CopyOptions{ConnString: e.url, Workers: 2, RangeBlocks: 1}, []wal.TableName{{Schema: "public", Name: "s"}}, e.m)
	if err != nil {
		t.Fatal(err)
	}
	w.await(t, 10)
	w.finish(t)
	to := e.sync()
	e.check()
	vs, err := e.m.Versions(from+1, to, 0)
	if err != nil {
		t.Fatal(err)
	}
	var withOther, empty, held int
	prev := int64(-1)
	for _, v := range vs {
		if len(v.Held) > 0 {
			held++
			if !slices.Equal(v.Held, []string{"public.s"}) || slices.ContainsFunc(v.Tables, func(tc TableChange) bool { return tc.Table == "public.s" }) {
				t.Errorf("version %s: held %v, changed %v", v.EndLSN, v.Held, v.Tables)
			}
		}
		if len(v.Tables) == 0 && len(v.Held) == 0 && len(v.Resynced) == 0 {
			empty++
		}
		for _, tc := range v.Tables {
			if tc.Table != "public.other" {
				continue
			}
			withOther++
			row, ok, err := e.m.Get(t.Context(), "public.other", []string{"1"}, v.EndLSN)
			if err != nil || !ok {
				t.Fatalf("other at %s: %v %v", v.EndLSN, ok, err)
			}
			// The row is length-prefixed text: "1:1" (id) then "L:n".
			rest := strings.TrimPrefix(string(row), "1:1")
			n, err := strconv.ParseInt(rest[strings.IndexByte(rest, ':')+1:], 10, 64)
			if err != nil {
				t.Fatalf("other at %s: row %q: %v", v.EndLSN, row, err)
			}
			if prev >= 0 && n != prev+1 {
				t.Errorf("other at %s: counter %d after %d", v.EndLSN, n, prev)
			}
			prev = n
		}
	}
	// s has no state at the versions between its last one before the
	// resync and the copy's landing: refused there, read everywhere else.
	e.m.mu.Lock()
	ws := slices.Clone(e.m.windows["public.s"])
	e.m.mu.Unlock()
	if len(ws) != 1 {
		t.Fatalf("s has resync windows %v, want one", ws)
	}
	win := ws[0]
	if win.at != at || win.to < at {
		t.Fatalf("window %+v for a copy at %s", win, at)
	}
	refused := 0
	for _, v := range vs {
		_, err := e.m.TreeAt(t.Context(), "public.s", v.EndLSN)
		inside := win.from < v.EndLSN && v.EndLSN < win.to
		switch {
		case inside && !errors.Is(err, ErrResyncWindow):
			t.Fatalf("s at %s inside the window %+v: %v, want refused", v.EndLSN, w, err)
		case !inside && err != nil:
			t.Fatalf("s at %s outside the window %+v: %v", v.EndLSN, w, err)
		case len(v.Held) > 0 && !inside && v.EndLSN != win.to:
			// (A landing at the head, past the copy's LSN, is at a
			// version that held changes of s: they are in its tree.)
			t.Fatalf("version %s held s's changes but is outside the window %+v", v.EndLSN, win)
		}
		if inside {
			refused++
		}
	}
	t.Logf("window (%s, %s), copy at %s: s refused at %d versions", win.from, win.to, win.at, refused)
	t.Logf("resynced at %s; %d transactions changed other, %d only s; %d versions, %d naming other, %d holding s's changes for the resync, %d naming no table", at, others, onlyS, len(vs), withOther, held, empty)
	if withOther != others {
		t.Errorf("%d transactions changed other, %d versions name it", others, withOther)
	}
	if held == 0 {
		t.Errorf("no version says it held s's changes for the resync")
	}
	if empty > 0 {
		t.Errorf("%d versions name no table: transactions on the resynced table shown as if nothing changed", empty)
	}
}
