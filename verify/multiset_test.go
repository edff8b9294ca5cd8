package verify

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// keylessSchema: two keyless REPLICA IDENTITY FULL tables; ev starts with
// identical rows (NULLs and empty strings among them, and out-of-line
// TOAST values), ev2 starts empty.
var keylessSchema = []string{
	`CREATE TABLE ev (a int, b text, c numeric, big text)`,
	`ALTER TABLE ev REPLICA IDENTITY FULL`,
	`CREATE TABLE ev2 (a int, b text, c numeric, big text)`,
	`ALTER TABLE ev2 REPLICA IDENTITY FULL`,
	`INSERT INTO ev (a, b, c) SELECT 1, 'x', 1.5 FROM generate_series(1, 3)`,
	`INSERT INTO ev (a, b, c) SELECT 2, NULL, NULL FROM generate_series(1, 2)`,
	`INSERT INTO ev (a, b, c) VALUES (3, '', 0)`,
	`INSERT INTO ev (a, b, c) SELECT i % 40, 'r' || (i % 7), i % 3 FROM generate_series(1, 1500) i`,
	// Incompressible ~10 kB values: stored out of line.
	`INSERT INTO ev (a, b, big) SELECT 7, 'toast', big FROM generate_series(1, 2) g,
		LATERAL (SELECT string_agg(md5(i::text), '') AS big FROM generate_series(1, 320) i) x`,
}

// oneOf is the SQL that changes exactly one of the identical rows that
// match cond (what a patch does, history/sql.go).
func oneOf(cond string) string {
	return fmt.Sprintf("(SELECT ctid FROM ev WHERE %s LIMIT 1)", cond)
}

// TestRunMultisetThroughPipeline: a keyless REPLICA IDENTITY FULL table
// with identical rows, copied and then changed through the stream
// (inserts of more duplicates, an update and a delete of one of several
// identical rows, updates that change nothing, an update beside an
// unchanged TOAST value, a delete of every duplicate of a row), verifies
// equal as a multiset; the same multiset inserted into another table in
// another order has the same root hash (history independence); and
// occurrences removed, added and changed on the mirror's side are each
// reported, with the row.
func TestRunMultisetThroughPipeline(t *testing.T) {
	p := newPipeline(t, []string{"public.ev", "public.ev2"}, keylessSchema...)
	p.start()
	p.exec(`INSERT INTO ev (a, b, c) VALUES (1, 'x', 1.5), (1, 'x', 1.5), (2, NULL, NULL)`,
		`UPDATE ev SET c = 9 WHERE ctid = `+oneOf(`a = 1 AND b = 'x'`),
		`DELETE FROM ev WHERE ctid = `+oneOf(`a = 2 AND b IS NULL`),
		`UPDATE ev SET b = b WHERE a = 5`,
		`UPDATE ev SET c = 42 WHERE ctid = `+oneOf(`b = 'toast'`),
		`DELETE FROM ev WHERE a = 6`,
		`INSERT INTO ev (a, b, c) SELECT 1, 'x', 1.5 FROM generate_series(1, 4)`,
		`UPDATE ev SET a = 1, b = 'x', c = 1.5 WHERE ctid = `+oneOf(`a = 3`),
		`INSERT INTO ev (a, b, c) VALUES (99, 'only', 1)`)
	p.exec(`INSERT INTO ev2 SELECT * FROM ev ORDER BY random()`)
	rep := mustRun(t, p.runner())
	if rep.Result != ResultEqual || rep.ExitCode() != 0 || len(rep.Tables) != 2 {
		t.Fatalf("want equal:\n%s", reportSummary(rep))
	}
	var pgCount uint64
	if err := p.conn.QueryRow(t.Context(), `SELECT count(*) FROM ev`).Scan(&pgCount); err != nil {
		t.Fatal(err)
	}
	for _, tr := range rep.Tables {
		if tr.Scheme != string(SchemeRowHash) || tr.PostgresCount != pgCount || tr.MirrorCount != pgCount {
			t.Fatalf("table report %+v, want scheme rowhash and %d rows on both sides", tr, pgCount)
		}
	}
	ev, err := p.m.TreeAt(t.Context(), "public.ev", ^wal.LSN(0))
	if err != nil {
		t.Fatal(err)
	}
	ev2, err := p.m.TreeAt(t.Context(), "public.ev2", ^wal.LSN(0))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Root.Hash != ev2.Root.Hash {
		t.Errorf("same multiset, different roots: ev (copy, then changes) %s, ev2 (inserts in random order) %s", ev.Root.Hash.Short(), ev2.Root.Hash.Short())
	}

	// Level 0 split over workers (TID ranges) gives the same digests.
	r := p.runner()
	r.Workers, r.Options.ParallelRows = 2, 100
	rep = mustRun(t, r, "public.ev")
	if rep.Result != ResultEqual || rep.Tables[0].Workers != 2 {
		t.Fatalf("want equal on 2 level-0 workers:\n%s\n%+v", reportSummary(rep), rep.Tables[0])
	}

	r = p.runner()
	r.tree = corruptMultiset
	rep = mustRun(t, r, "public.ev")
	if rep.Result != ResultDifferences || rep.ExitCode() != 1 {
		t.Fatalf("want differences:\n%s", reportSummary(rep))
	}
	tr := rep.Tables[0]
	var got []string
	for _, d := range tr.Rows {
		got = append(got, d.Kind+" "+strings.Join(d.Key, ","))
		if (d.Kind == "missing") != (d.Postgres != nil) || (d.Kind == "extra") != (d.Mirror != nil) {
			t.Errorf("%s row: postgres %v, mirror %v", d.Kind, deref(d.Postgres), deref(d.Mirror))
		}
	}
	slices.Sort(got)
	want := []string{"extra 2,NULL,NULL,NULL", "extra 99,changed,1,NULL", "missing 1,x,1.5,NULL", "missing 99,only,1,NULL"}
	if tr.Differences != 4 || !slices.Equal(got, want) {
		t.Fatalf("differences %d %q, want %q:\n%s", tr.Differences, got, want, reportSummary(rep))
	}
	if tr.DirtyBuckets < 1 || tr.DirtyBuckets > 4 {
		t.Errorf("%d dirty buckets for 4 differing occurrences", tr.DirtyBuckets)
	}
}

// corruptMultiset, in a copy of the mirror's tree, removes the last
// occurrence of (1, 'x', 1.5, NULL), adds one of (2, NULL, NULL, NULL),
// and changes the only (99, 'only', 1, NULL) into (99, 'changed', 1,
// NULL).
func corruptMultiset(ctx context.Context, t *mirror.Tree) (*mirror.Tree, error) {
	s := func(v string) []byte { return []byte(v) }
	x := rowenc.Encode([][]byte{s("1"), s("x"), s("1.5"), nil})
	two := rowenc.Encode([][]byte{s("2"), nil, nil, nil})
	only := rowenc.Encode([][]byte{s("99"), s("only"), s("1"), nil})
	changed := rowenc.Encode([][]byte{s("99"), s("changed"), s("1"), nil})
	count := func(row []byte) (uint32, error) {
		var n uint32
		for {
			_, ok, err := t.Engine().Get(ctx, t.Root, rowenc.AppendOccurrenceKey(nil, row, n))
			if err != nil || !ok {
				return n, err
			}
			n++
		}
	}
	nx, err := count(x)
	if err != nil || nx < 2 {
		return nil, fmt.Errorf("(1, 'x', 1.5) occurs %d times in the mirror (%v), want several", nx, err)
	}
	ntwo, err := count(two)
	if err != nil {
		return nil, err
	}
	if n, err := count(only); err != nil || n != 1 {
		return nil, fmt.Errorf("(99, 'only', 1) occurs %d times in the mirror (%v), want 1", n, err)
	}
	return withEdits(ctx, t, []prolly.Edit{
		{Key: rowenc.AppendOccurrenceKey(nil, x, nx-1), Delete: true},
		{Key: rowenc.AppendOccurrenceKey(nil, two, ntwo), Value: two},
		{Key: rowenc.AppendOccurrenceKey(nil, only, 0), Delete: true},
		{Key: rowenc.AppendOccurrenceKey(nil, changed, 0), Value: changed},
	})
}
