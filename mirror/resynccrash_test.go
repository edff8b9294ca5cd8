package mirror

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/follow"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// errKilled stands for a SIGKILL at a step of a start (killingTarget).
var errKilled = errors.New("killed by the test")

// killingTarget is the mirror as follow drives it, killed at one step of
// a start: when the initial copy records where the stream starts
// (SetResumeLSN), before the record (afterResume false: every table
// copied, the copy not done) or right after it (the copies recorded or
// held, no stream run yet).
type killingTarget struct {
	*Mirror
	afterResume bool
}

func (k *killingTarget) SetResumeLSN(ctx context.Context, lsn wal.LSN) error {
	if k.afterResume {
		if err := k.Mirror.SetResumeLSN(ctx, lsn); err != nil {
			return err
		}
	}
	return errKilled
}

// crash stops the stream and closes the mirror as a SIGKILL leaves it
// (nothing flushed or synced that was not already), then opens it again
// with no stream running.
func (e *e2e) crash() {
	e.t.Helper()
	e.stop()
	e.m.abandon()
	if err := e.db.Close(); err != nil {
		e.t.Fatal(err)
	}
	e.m, e.db = nil, nil
	e.open()
}

// TestCopyHeldAtKillLandsAfterRestart (issue 21; TestCrashKill9 on
// PostgreSQL 17, seed 1796510034051142297: "only 0 versions touched the
// counter"): a start that copies again the tables a killed first start
// had copied (under the old slot's snapshot) holds the new copies, as
// the tables have records, until the stream reaches the new slot's start.
// Killed after recording that start and before the stream landed them,
// the next start found the tables resync_needed and copied them again
// under a fresh snapshot, past every commit made meanwhile, and each run
// killed before the stream reached its copy did the same: every commit
// up to the last copy was inside the resync window, and the counter had
// no per-commit history. A held copy now survives the kill and lands
// where the stream starts, and every commit after it is a version that
// reads the counter.
func TestCopyHeldAtKillLandsAfterRestart(t *testing.T) {
	e := newE2EOpen(t, Options{}, []string{"public.counter", "public.items"},
		`CREATE TABLE counter (id int PRIMARY KEY, k bigint NOT NULL)`, `INSERT INTO counter VALUES (1, 0)`,
		`CREATE TABLE items (id int PRIMARY KEY, n int NOT NULL)`, `INSERT INTO items SELECT g, 0 FROM generate_series(1, 100) g`)
	prepare := func(target follow.Target, holdResyncs bool) error {
		cfg := e.followConfig()
		cfg.Target, cfg.HoldResyncs = target, holdResyncs
		return follow.New(cfg).Prepare(t.Context())
	}
	bump := func(n int) {
		for range n {
			e.exec(`UPDATE counter SET k = k + 1 WHERE id = 1`, `UPDATE items SET n = n + 1 WHERE id = 1`)
		}
	}
	// The first start copies both tables and is killed before it records
	// where the stream starts.
	if err := prepare(&killingTarget{Mirror: e.m}, true); !errors.Is(err, errKilled) {
		t.Fatalf("first start: %v, want the kill", err)
	}
	e.crash()
	bump(3)
	// The second start makes a new slot and copies both again; killed
	// once it recorded the slot's start, before the stream ran.
	if err := prepare(&killingTarget{Mirror: e.m, afterResume: true}, true); !errors.Is(err, errKilled) {
		t.Fatalf("second start: %v, want the kill", err)
	}
	resume := e.m.Durable()
	e.crash()
	bump(5) // streamed by the next start from the slot's start
	// The third start, as the daemon's: copies again what is not ready,
	// then streams.
	if err := prepare(e.m, false); err != nil {
		t.Fatal(err)
	}
	e.start()
	bump(2)
	e.check()

	// Every commit after the slot's start is a version of the counter,
	// counting up from what the copies hold (3).
	vs, err := e.m.Versions(resume+1, e.m.Head().EndLSN, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ks []int64
	for _, v := range vs {
		if !slices.ContainsFunc(v.Tables, func(tc TableChange) bool { return tc.Table == "public.counter" }) {
			continue
		}
		val, ok, err := e.m.Get(t.Context(), "public.counter", []string{"1"}, v.EndLSN)
		if err != nil || !ok {
			t.Fatalf("counter at version %s: found %v, %v", v.EndLSN, ok, err)
		}
		text, _, err := rowenc.Column(val, 1)
		if err != nil {
			t.Fatal(err)
		}
		k, err := strconv.ParseInt(string(text), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		ks = append(ks, k)
	}
	if want := []int64{4, 5, 6, 7, 8, 9, 10}; !slices.Equal(ks, want) {
		t.Fatalf("the counter's versions after the slot's start %s read %v, want %v (one per commit)", resume, ks, want)
	}
	for _, name := range []string{"public.counter", "public.items"} {
		if ti := tableInfo(t, e.m, name); ti.CopiedAt != resume || ti.LandedAt != resume {
			t.Errorf("%s copied at %s, landed at %s; the held copy was taken at the slot's start %s", name, ti.CopiedAt, ti.LandedAt, resume)
		}
	}
}
