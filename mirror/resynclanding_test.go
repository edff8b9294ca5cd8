package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestResyncKeepsEarlierVersions (issue 21): a resync's copy is taken
// under a snapshot that can be ahead of the last commit the mirror took
// (the stream lags, or is not running yet: a resync at start). Reading a
// version from before the resync must still give that version's rows,
// not rows committed after it that the copy contains.
//
// It fails today (session 10): TableCopied records the copy's group at
// max(lastGroup, head.EndLSN), the head's last version, so that version
// reads the copy (here id 1 "c" instead of "b", id 2 gone, id 101
// present), and the commits between it and the copy's LSN, whose changes
// to the table the stream then drops (CopiedAt), never show it otherwise.
// The fix is the landing point: a copy at an LSN past the last commit the
// mirror took must land once the mirror has taken every commit below it,
// as a version of its own after them (a group at the copy's LSN), never
// over an existing version; see the restart helper's session-10 report.
func TestResyncKeepsEarlierVersions(t *testing.T) {
	t.Skip("known wrong answer (issue 21, session 10): a resync copy lands over the head's last version; remove this skip with the fix")
	e := newE2E(t, Options{}, []string{"public.s", "public.other"},
		`CREATE TABLE s (id int PRIMARY KEY, v text)`, `CREATE TABLE other (id int PRIMARY KEY, n int)`,
		`INSERT INTO s SELECT g, 'a' FROM generate_series(1, 100) g`, `INSERT INTO other VALUES (1, 0)`)
	e.start()
	e.exec(`UPDATE s SET v = 'b' WHERE id = 1`, `UPDATE other SET n = 1`)
	e.sync()
	v := e.m.Head()
	before := treeRows(t, e.m, "public.s", v.EndLSN)
	if got := before[1]; got != "b" {
		t.Fatalf("s id 1 at %s: %q, want b", v.EndLSN, got)
	}

	// The stream stops (a lag, or a daemon that is down); s changes
	// meanwhile, and is resynced under a snapshot that contains it.
	e.stop()
	e.exec(`UPDATE s SET v = 'c' WHERE id = 1`, `DELETE FROM s WHERE id = 2`, `INSERT INTO s VALUES (101, 'new')`)
	if err := e.m.MarkResync(t.Context(), "public.s", "test"); err != nil {
		t.Fatal(err)
	}
	at, err := replication.Resync(t.Context(), replication.CopyOptions{ConnString: e.url, Workers: 2, RangeBlocks: 1},
		[]wal.TableName{{Schema: "public", Name: "s"}}, e.m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("last version %s, resync copy at %s", v.EndLSN, at)
	check := func(when string) {
		t.Helper()
		got, err := rowsAt(t, e.m, "public.s", v.EndLSN)
		if err != nil {
			// Refusing a version the mirror cannot show is allowed;
			// answering it with other rows is not.
			t.Logf("%s: s at %s refused: %v", when, v.EndLSN, err)
			return
		}
		if len(got) != len(before) {
			t.Errorf("%s: s at %s has %d rows, that version had %d", when, v.EndLSN, len(got), len(before))
		}
		for id, val := range before {
			if got[id] != val {
				t.Errorf("%s: s id %d at %s: %q, that version had %q", when, id, v.EndLSN, got[id], val)
			}
		}
		if g, ok := got[101]; ok {
			t.Errorf("%s: s at %s holds id 101 (%q), inserted after it", when, v.EndLSN, g)
		}
	}
	check("after the resync")
	e.start()
	e.exec(`UPDATE other SET n = 2`)
	e.check()
	check("after streaming on")
}

// rowsAt reads s (id int, v text) at lsn: id → v.
func rowsAt(t *testing.T, m *Mirror, table string, lsn wal.LSN) (map[int]string, error) {
	t.Helper()
	tr, err := m.TreeAt(t.Context(), table, lsn)
	if err != nil {
		return nil, err
	}
	out := map[int]string{}
	for _, v := range treeMap(t, tr) {
		cols, err := rowenc.Decode([]byte(v))
		if err != nil {
			t.Fatal(err)
		}
		var id int
		for _, c := range cols[0] {
			id = id*10 + int(c-'0')
		}
		out[id] = string(cols[1])
	}
	return out, nil
}

func treeRows(t *testing.T, m *Mirror, table string, lsn wal.LSN) map[int]string {
	t.Helper()
	rows, err := rowsAt(t, m, table, lsn)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
