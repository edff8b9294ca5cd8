package history

import (
	"errors"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestMergeAcrossSchemaChangeRefusesBeforeAnyEvent: a revert (or merge)
// whose second table changed schema between the versions is refused before
// the first table's events go out; a SQL patch printed up to BEGIN and then
// cut short by the error helps nobody (issue 25).
func TestMergeAcrossSchemaChangeRefusesBeforeAnyEvent(t *testing.T) {
	ctx := t.Context()
	url := pg.NewDB(t)
	conn := connect(t, url)
	mustExec(t, conn, `CREATE TABLE a (id int8 PRIMARY KEY, v text);
		CREATE TABLE b (id int8 PRIMARY KEY, v text);
		INSERT INTO a SELECT i, 'a' || i FROM generate_series(1, 20) i;
		INSERT INTO b SELECT i, 'b' || i FROM generate_series(1, 20) i;`)
	f := follow(t, url, conn, "mergeschema", "public.a", "public.b")
	mustExec(t, conn, `UPDATE a SET v = 'before' WHERE id = 1`)
	verA := f.sync()
	mustExec(t, conn, `DELETE FROM a WHERE id <= 5`, `ALTER TABLE b ADD COLUMN w int4`, `UPDATE b SET w = 1 WHERE id = 2`)
	f.sync()
	mustExec(t, conn, `UPDATE a SET v = v WHERE id = 6`)
	verB := f.sync()
	if f.resyncs.Load() == 0 {
		t.Fatal("the ALTER TABLE caused no resync: the scenario lost its teeth")
	}
	svc := New(f.db, f.m)

	// The log lists the resync of public.b inline, between the versions.
	var resync []LogEntry
	if err := svc.Log(ctx, LogRequest{}, func(e LogEntry) error {
		if e.Resync {
			resync = append(resync, e)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	lsn := func(s string) wal.LSN {
		l, err := wal.ParseLSN(s)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if len(resync) != 1 || len(resync[0].Tables) != 1 || resync[0].Tables[0].Table != "public.b" || resync[0].Tables[0].Rows != 20 ||
		lsn(resync[0].LSN) <= lsn(verA) || lsn(resync[0].LSN) > lsn(verB) {
		t.Errorf("log resync entries %+v, want one for public.b (20 rows) between %s and %s", resync, verA, verB)
	}
	for name, run := range map[string]func(func(*Event) error) error{
		"revert": func(fn func(*Event) error) error {
			_, err := svc.Revert(ctx, RevertRequest{From: verA, To: verB}, fn)
			return err
		},
		"merge": func(fn func(*Event) error) error {
			_, err := svc.Merge(ctx, MergeRequest{Ours: verB, Theirs: verA, Base: verA, Patch: true}, fn)
			return err
		},
	} {
		var events []string
		err := run(func(e *Event) error {
			events = append(events, string(e.Type)+" "+e.Table)
			return nil
		})
		if !errors.Is(err, ErrSchemaChanged) || !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "public.b") {
			t.Errorf("%s: %v, want a refusal naming public.b's schema change", name, err)
		}
		if len(events) > 0 {
			t.Errorf("%s: %d events before the refusal (%v); want none", name, len(events), events)
		}
	}
}
