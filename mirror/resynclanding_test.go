package mirror

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/follow"
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
// It failed before session 11: TableCopied recorded the copy's group at
// max(lastGroup, head.EndLSN), the head's last version, so that version
// read the copy (here id 1 "c" instead of "b", id 2 gone, id 101
// present). Now the copy lands once the mirror has taken every commit
// below its LSN (landing.go).
func TestResyncKeepsEarlierVersions(t *testing.T) {
	e := newResyncE2E(t)
	// The stream stops (a lag, or a daemon that is down); s changes
	// meanwhile, and is resynced under a snapshot that contains it.
	v, before := e.streamAndStop(`UPDATE s SET v = 'b' WHERE id = 1`, `UPDATE other SET n = 1`)
	if got := before[1]; got != "b" {
		t.Fatalf("s id 1 at %s: %q, want b", v.EndLSN, got)
	}
	e.exec(`UPDATE s SET v = 'c' WHERE id = 1`, `DELETE FROM s WHERE id = 2`, `INSERT INTO s VALUES (101, 'new')`)
	at := e.resyncS()
	t.Logf("last version %s, resync copy at %s", v.EndLSN, at)
	check := func(when string) {
		t.Helper()
		got, err := rowsAt(t, e.m, "public.s", v.EndLSN)
		if err != nil {
			// The version before the resync holds s's state: it reads
			// it, never the copy's rows, and is not refused.
			t.Fatalf("%s: s at %s: %v", when, v.EndLSN, err)
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

// waitReady waits until table is ready in m (its resync copy landed).
func waitReady(t *testing.T, m *Mirror, table string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		for _, ti := range m.Tables() {
			if ti.Name == table && ti.State == StateReady {
				return
			}
		}
		if err := m.Err(); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready after 2 minutes (its copy did not land)", table)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wantRefused checks that reading table at lsn is refused as inside a
// resync window, naming the table.
func wantRefused(t *testing.T, m *Mirror, table string, lsn wal.LSN) {
	t.Helper()
	_, err := m.TreeAt(t.Context(), table, lsn)
	var rw *ResyncWindowError
	if !errors.As(err, &rw) || !errors.Is(err, ErrResyncWindow) {
		t.Fatalf("%s at %s: %v, want a resync window refusal", table, lsn, err)
	}
	if rw.Table != table || !strings.Contains(err.Error(), table) || rw.SQLState() != "55000" {
		t.Fatalf("%s at %s: refusal %q (table %q, SQLSTATE %s)", table, lsn, err, rw.Table, rw.SQLState())
	}
}

// TestResyncAtStartLandsAsItsOwnVersion: the resync a start runs before
// the stream (follow.resyncMissing) copies under a snapshot past every
// commit the mirror took. The copy lands as a version of its own at the
// copy's LSN once the stream has replayed the commits below it (the
// resync's marker carries it there on an idle database); those commits'
// versions refuse reads of the table, and every version outside the
// window reads what PostgreSQL had.
func TestResyncAtStartLandsAsItsOwnVersion(t *testing.T) {
	e := newResyncE2E(t)
	v, before := e.streamAndStop(`UPDATE s SET v = 'b' WHERE id = 1`)
	e.exec(`UPDATE s SET v = 'c' WHERE id = 1`, `UPDATE other SET n = 1`, `DELETE FROM s WHERE id = 2`, `INSERT INTO s VALUES (101, 'new')`)
	if err := e.m.MarkResync(t.Context(), "public.s", "test"); err != nil {
		t.Fatal(err)
	}
	// A start: Prepare resyncs what is not ready, before the stream.
	cfg := e.followConfig()
	cfg.HoldResyncs = false
	if err := follow.New(cfg).Prepare(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := e.m.NeedsResync(); len(got) != 0 {
		t.Fatalf("copy waiting to land, NeedsResync = %v", got)
	}
	if got := treeRows(t, e.m, "public.s", v.EndLSN); !maps.Equal(got, before) {
		t.Fatalf("s at %s before the landing: %v, that version had %v", v.EndLSN, got, before)
	}
	e.start()
	waitReady(t, e.m, "public.s")
	e.sync()
	e.check()
	if got := treeRows(t, e.m, "public.s", v.EndLSN); !maps.Equal(got, before) {
		t.Fatalf("s at %s after the landing: %v, that version had %v", v.EndLSN, got, before)
	}
	e.wantOwnLanding(v.EndLSN)
}

// TestResyncBeforeFirstCommitLandsAsItsOwnVersion: a resync requested
// before the mirror took any commit after its initial copy (no version
// yet) is held and lands as a version of its own like any other; the
// state the initial copy recorded (read at the copy's LSN) keeps the
// initial copy's rows.
//
// It failed before session 12: with no version, landDue took every copy
// for an initial one and landed it at once over the initial copy's group
// record, so reads at the copy's LSN (and the commits replayed after it)
// read the resynced rows: id 1 "c" instead of "a", id 101 present.
func TestResyncBeforeFirstCommitLandsAsItsOwnVersion(t *testing.T) {
	e := newResyncE2E(t)
	copied := tableInfo(t, e.m, "public.s").CopiedAt
	before := treeRows(t, e.m, "public.s", copied)
	if before[1] != "a" || len(before) != 100 {
		t.Fatalf("s at the initial copy %s: %v", copied, before)
	}
	// The stream has not run: the mirror has no commit after its copy.
	e.exec(`UPDATE s SET v = 'c' WHERE id = 1`, `UPDATE other SET n = 1`, `DELETE FROM s WHERE id = 2`, `INSERT INTO s VALUES (101, 'new')`)
	at := e.resyncS()
	if h := e.m.Head(); h.EndLSN != 0 {
		t.Fatalf("head %s before the stream ran", h.EndLSN)
	}
	if got := treeRows(t, e.m, "public.s", copied); !maps.Equal(got, before) {
		t.Fatalf("s at the initial copy %s after a resync at %s: %v, the copy had %v", copied, at, got, before)
	}
	if ti := tableInfo(t, e.m, "public.s"); ti.State != StateResyncNeeded {
		t.Fatalf("s %s before the stream reached its copy at %s", ti.State, at)
	}
	e.start()
	e.exec(`UPDATE other SET n = 2`) // a commit past the copy
	waitReady(t, e.m, "public.s")
	e.sync()
	e.check()
	if got := treeRows(t, e.m, "public.s", copied); !maps.Equal(got, before) {
		t.Fatalf("s at the initial copy %s after the landing: %v, the copy had %v", copied, got, before)
	}
	if l := e.wantOwnLanding(copied); l.EndLSN != at {
		t.Fatalf("landing at %s, the resync copied at %s", l.EndLSN, at)
	}
}

// TestResyncLandsOnIdleStream: with no commit after a resync's copy and
// no marker (a standby cannot write one), the copy lands once the
// stream's keepalives report the server past its LSN (follow's settling
// of the idle slot calls StreamReached), as a version of its own.
//
// It failed before session 12: the copy waited for the next commit
// (here: none; "not ready after 2 minutes").
func TestResyncLandsOnIdleStream(t *testing.T) {
	e := newResyncE2E(t)
	v, before := e.streamAndStop(`UPDATE s SET v = 'b' WHERE id = 1`)
	e.exec(`UPDATE s SET v = 'c' WHERE id = 1`, `UPDATE other SET n = 1`, `DELETE FROM s WHERE id = 2`, `INSERT INTO s VALUES (101, 'new')`)
	// resyncS writes no marker (follow's resync does, where the server
	// is not a standby).
	at := e.resyncS()
	e.start()
	waitReady(t, e.m, "public.s")
	e.check()
	if got := treeRows(t, e.m, "public.s", v.EndLSN); !maps.Equal(got, before) {
		t.Fatalf("s at %s after the landing: %v, that version had %v", v.EndLSN, got, before)
	}
	if l := e.wantOwnLanding(v.EndLSN); l.EndLSN != at || e.m.Head().EndLSN != at {
		t.Fatalf("landing at %s, head %s, the resync copied at %s", l.EndLSN, e.m.Head().EndLSN, at)
	}
}

// newResyncE2E follows s (ids 1–100, v 'a') and other (one row),
// copied, with no stream running.
func newResyncE2E(t *testing.T) *e2e {
	t.Helper()
	return newE2E(t, Options{}, []string{"public.s", "public.other"},
		`CREATE TABLE s (id int PRIMARY KEY, v text)`, `CREATE TABLE other (id int PRIMARY KEY, n int)`,
		`INSERT INTO s SELECT g, 'a' FROM generate_series(1, 100) g`, `INSERT INTO other VALUES (1, 0)`)
}

// resyncS marks s for a resync (a no-op when it is marked already) and
// copies it under a fresh snapshot, as follow's resync does but writing
// no marker: the copy's LSN.
func (e *e2e) resyncS() wal.LSN {
	e.t.Helper()
	if err := e.m.MarkResync(e.t.Context(), "public.s", "test"); err != nil {
		e.t.Fatal(err)
	}
	at, err := replication.Resync(e.t.Context(), replication.CopyOptions{ConnString: e.url, Workers: 2, RangeBlocks: 1},
		[]wal.TableName{{Schema: "public", Name: "s"}}, e.m)
	if err != nil {
		e.t.Fatal(err)
	}
	return at
}

// streamAndStop streams stmts into the mirror and stops the stream: the
// head version then and s's rows at it.
func (e *e2e) streamAndStop(stmts ...string) (Version, map[int]string) {
	e.t.Helper()
	e.start()
	e.exec(stmts...)
	e.sync()
	v := e.m.Head()
	before := treeRows(e.t, e.m, "public.s", v.EndLSN)
	e.stop()
	return v, before
}

// wantOwnLanding checks the versions after last (s's last held version)
// once s's resync copy landed: the replayed commits below the copy refuse
// s and read other; the first version listing s as resynced is the
// landing, at the copy's LSN with no commit, reading the copy (id 1 "c",
// id 2 gone, id 101 "new"). It returns the landing version.
func (e *e2e) wantOwnLanding(last wal.LSN) Version {
	t := e.t
	t.Helper()
	vs, err := e.m.Versions(last+1, e.m.Head().EndLSN, 0)
	if err != nil {
		t.Fatal(err)
	}
	var landing *Version
	refused := 0
	for i := range vs {
		if len(vs[i].Resynced) > 0 {
			landing = &vs[i]
			break
		}
		refused++
		wantRefused(t, e.m, "public.s", vs[i].EndLSN)
		if _, err := e.m.TreeAt(t.Context(), "public.other", vs[i].EndLSN); err != nil {
			t.Fatalf("other at %s: %v", vs[i].EndLSN, err)
		}
	}
	if landing == nil {
		t.Fatalf("no landing version among %d versions after %s", len(vs), last)
	}
	ti := tableInfo(t, e.m, "public.s")
	if !slices.Equal(landing.Resynced, []string{"public.s"}) || len(landing.Tables) != 0 || landing.EndLSN != ti.CopiedAt || ti.LandedAt != landing.EndLSN {
		t.Fatalf("landing version %+v; s copied at %s, landed at %s", *landing, ti.CopiedAt, ti.LandedAt)
	}
	got := treeRows(t, e.m, "public.s", landing.EndLSN)
	if got[1] != "c" || got[101] != "new" || len(got) != 100 {
		t.Fatalf("s at the landing %s: id 1 %q, id 101 %q, %d rows", landing.EndLSN, got[1], got[101], len(got))
	}
	t.Logf("last version %s, %d replayed versions refused, landing at %s", last, refused, landing.EndLSN)
	return *landing
}

func tableInfo(t *testing.T, m *Mirror, name string) TableInfo {
	t.Helper()
	for _, ti := range m.Tables() {
		if ti.Name == name {
			return ti
		}
	}
	t.Fatalf("no table %s", name)
	return TableInfo{}
}

// TestResyncCrashBeforeLanding: a copy waiting to land is recorded. A
// crash before it lands leaves it held at the next start (the table
// resync_needed, its changes held, nothing of the copy applied, no new
// copy asked for), and the stream lands it at its own LSN, with the
// changes committed after it applied.
//
// It failed before session 13 (NeedsResync [public.s] after the crash):
// the copy was in memory only and the next start copied the table again
// under a fresh snapshot, so every commit up to it lost its state of the
// table (TestCopyHeldAtKillLandsAfterRestart).
func TestResyncCrashBeforeLanding(t *testing.T) {
	e := newResyncE2E(t)
	v, before := e.streamAndStop(`UPDATE s SET v = 'b' WHERE id = 1`)
	e.exec(`UPDATE s SET v = 'c' WHERE id = 1`, `DELETE FROM s WHERE id = 2`, `INSERT INTO s VALUES (101, 'new')`)
	at := e.resyncS()
	held := func(when string) {
		t.Helper()
		if ti := tableInfo(t, e.m, "public.s"); ti.State != StateResyncNeeded || ti.HeldUntil != at {
			t.Fatalf("%s: s %s, held until %s; its copy at %s waits for the stream", when, ti.State, ti.HeldUntil, at)
		}
		if got := e.m.NeedsResync(); len(got) != 0 {
			t.Fatalf("%s: NeedsResync = %v, want none (the copy at %s is held)", when, got, at)
		}
	}
	held("before the crash")
	e.crash()
	held("after the crash")
	// A GC keeps the held copy's tree, and the remote upload sends it:
	// GroupRoots names it.
	e.m.mu.Lock()
	root := e.m.landing["public.s"].root
	e.m.mu.Unlock()
	if roots, err := e.m.GroupRoots(t.Context()); err != nil || !slices.Contains(roots, root) {
		t.Fatalf("GroupRoots %v (%v) does not name the held copy's root %s", roots, err, root)
	}
	e.start()
	e.exec(`INSERT INTO s VALUES (102, 'after crash')`, `UPDATE other SET n = 5`)
	waitReady(t, e.m, "public.s")
	e.check()
	if got := treeRows(t, e.m, "public.s", v.EndLSN); !maps.Equal(got, before) {
		t.Fatalf("s at %s: %v, that version had %v", v.EndLSN, got, before)
	}
	if l := e.wantOwnLanding(v.EndLSN); l.EndLSN != at {
		t.Fatalf("landing at %s, the copy held across the crash was taken at %s", l.EndLSN, at)
	}
}
