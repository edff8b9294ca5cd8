package history

import (
	"testing"

	"github.com/sidecar-dev/sidecar/history/historytest"
)

func TestLogFilters(t *testing.T) {
	f := historytest.New(t)
	svc := New(f.DB, f.Mirror)
	ctx := t.Context()
	S := historytest.S
	a := historytest.Rel(1, "public", "a", 1, [2]string{"id", "int8"})
	b := historytest.Rel(2, "public", "b", 1, [2]string{"id", "int8"})
	f.CreateTable(a, nil)
	f.CreateTable(b, nil)
	var lsns []string
	for i := range 600 { // more than one page of the reverse walk
		rel := a
		if i%3 == 0 {
			rel = b
		}
		lsns = append(lsns, f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{S("1")}) }).EndLSN.String())
	}
	if _, err := svc.CreateTag(ctx, "t100", lsns[100]); err != nil {
		t.Fatal(err)
	}
	collect := func(req LogRequest) []LogEntry {
		var out []LogEntry
		if err := svc.Log(ctx, req, func(e LogEntry) error { out = append(out, e); return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := collect(LogRequest{})
	if len(all) != 600 || all[0].LSN != lsns[599] || all[599].LSN != lsns[0] {
		t.Fatalf("log: %d entries, first %s last %s", len(all), all[0].LSN, all[len(all)-1].LSN)
	}
	if e := all[599-100]; len(e.Tags) != 1 || e.Tags[0] != "t100" || e.Tables[0].Table != "public.a" || e.Tables[0].Rows != 1 {
		t.Fatalf("entry 100: %+v", e)
	}
	onlyB := collect(LogRequest{Table: "public.b", Limit: 5})
	if len(onlyB) != 5 || onlyB[0].LSN != lsns[597] || onlyB[1].LSN != lsns[594] {
		t.Fatalf("--table public.b -n 5: %+v", onlyB)
	}
	since := collect(LogRequest{Since: "t100"})
	if len(since) != 499 || since[len(since)-1].LSN != lsns[101] {
		t.Fatalf("--since t100: %d entries, last %s", len(since), since[len(since)-1].LSN)
	}
	if err := svc.Log(ctx, LogRequest{Table: "public.zz"}, func(LogEntry) error { return nil }); err == nil {
		t.Fatal("unknown table accepted")
	}
}
