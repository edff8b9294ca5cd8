package history

import (
	"errors"
	"testing"

	"github.com/sidecar-dev/sidecar/history/historytest"
)

// TestTableNamesAsConfigReadsThem: requests name a table by its key or
// as config accepts it (bare name in public, unquoted parts folded), and
// every output names it by its key.
func TestTableNamesAsConfigReadsThem(t *testing.T) {
	f := historytest.New(t)
	svc := New(f.DB, f.Mirror)
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"v", "text"})
	f.CreateTable(rel, [][]*string{{historytest.S("1"), historytest.S("a")}})
	f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{historytest.S("1"), historytest.S("b")}) })
	f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{historytest.S("1"), historytest.S("c")}) })
	for _, name := range []string{"public.t", "t", "T", "PUBLIC.T", `"public"."t"`} {
		var header ReadHeader
		rows := 0
		err := svc.Scan(t.Context(), ReadRequest{Table: name}, func(h ReadHeader) error { header = h; return nil },
			func(*Row) error { rows++; return nil })
		if err != nil || rows != 1 || header.Table != "public.t" {
			t.Errorf("scan %q: %v, %d rows, header table %q", name, err, rows, header.Table)
		}
		var tables []string
		_, err = svc.Diff(t.Context(), DiffRequest{From: "HEAD~1", To: "HEAD", Tables: []string{name}}, func(e *Event) error {
			if e.Type == EventTable {
				tables = append(tables, e.Table)
			}
			return nil
		})
		if err != nil || len(tables) != 1 || tables[0] != "public.t" {
			t.Errorf("diff --table %q: %v, tables %v", name, err, tables)
		}
		n := 0
		// Two commits and the initial copy, which is a version too.
		if err := svc.Log(t.Context(), LogRequest{Table: name}, func(LogEntry) error { n++; return nil }); err != nil || n != 3 {
			t.Errorf("log --table %q: %v, %d entries", name, err, n)
		}
	}
	for _, name := range []string{`"T"`, "other", "public.t.x"} {
		err := svc.Scan(t.Context(), ReadRequest{Table: name}, func(ReadHeader) error { return nil }, func(*Row) error { return nil })
		if !errors.Is(err, ErrUnknownTable) {
			t.Errorf("scan %q: %v, want ErrUnknownTable", name, err)
		}
	}
}
