package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/wal"
)

// The pieces the kill -9 tests share (crash_test.go, remote_test.go).

// seedFlag replays a failing random test: go test ./cmd/sidecar -run X -seed N.
var seedFlag = seed.Flag()

// crashParams returns the number of kills (killsEnv overrides kills) and
// the seed (-seed replays; else the clock), which a failing t prints.
func crashParams(t *testing.T, killsEnv string, kills int) (int, int64) {
	t.Helper()
	if s := os.Getenv(killsEnv); s != "" {
		kills, _ = strconv.Atoi(s)
	}
	return kills, int64(seed.New(t, seedFlag))
}

// crashTables creates the crash workload's tables: counter with one row
// and items with rows rows.
func crashTables(t *testing.T, url string, rows int) {
	t.Helper()
	mustExec(t, url,
		"CREATE TABLE counter (id int PRIMARY KEY, k bigint NOT NULL)",
		"INSERT INTO counter VALUES (1, 0)",
		"CREATE TABLE items (id int PRIMARY KEY, n bigint NOT NULL, note text)",
	)
	// In statements of at most 1M rows: each has mustExec's ceiling, which
	// one 10M-row INSERT passes on a loaded machine (RESTART_ROWS).
	const chunk = 1_000_000
	for lo := 1; lo <= rows; lo += chunk {
		hi := min(lo+chunk-1, rows)
		mustExec(t, url, fmt.Sprintf("INSERT INTO items SELECT g, 0, repeat('x', 40) || g FROM generate_series(%d, %d) g", lo, hi))
	}
}

// killTiming is when killRuns kills each run: never timed from the
// process's start (on a loaded machine such a kill lands before the run
// has done anything, so every kill tests the same early moment and the
// stream is never reached), but from a condition the run reached, then a
// seeded pause so the kill lands anywhere in that phase.
type killTiming struct {
	// streamFrom is the first run that waits, before its pause, until it
	// streams and has made a commit of its own durable (the initial copy
	// is over: AwaitProgress); earlier runs wait only for the API to
	// answer, so their kills land inside the initial copy when it is long.
	streamFrom int
	// pause is the seeded time between the condition and the kill.
	pause func(i int) time.Duration
}

// killRuns starts `sidecar run --config file` kills times and kills each
// with SIGKILL at its moment (killTiming); after, if set, runs once it is
// reaped. A sidecar that exits by itself fails the test.
func killRuns(t *testing.T, file string, kills int, k killTiming, after func(i int, p *proc)) {
	t.Helper()
	for i := range kills {
		p := sidecarProcess(t, "run", "--config", file)
		api, exited, err := p.awaitReady(0)
		if err == nil && i >= k.streamFrom {
			err = p.AwaitProgress(api, 0)
		}
		if err != nil || exited {
			t.Fatalf("run %d, before its kill: %v\n%s", i, err, p.OutputTail())
		}
		time.Sleep(k.pause(i)) // the kill's moment within the phase reached, not a wait for a condition
		if err := p.Kill9(); err != nil {
			t.Fatalf("kill %d: %v", i, err)
		}
		if after != nil {
			after(i, p)
		}
	}
}

// catchUpAndStop commits a marker and waits (logging the status every
// 10 s) until the sidecar p serving at base streams past it, then stops
// it with SIGTERM and requires exit 0. The wait fails when the durable
// LSN stops advancing for daemontest.Ceiling (or after 30 min in all),
// not after a fixed time: the backlog the workload left during the kills
// grows with the machine's load (at load 50, over 1 GiB of WAL), and so
// does the time to apply it. The WAL may end with an aborted big
// transaction: hence a marker commit, not the server's WAL position. It
// returns the WAL position before the marker.
//
// With an in-memory HEAD it also waits until the HEAD has applied the
// marker (status head.lsn past the target): the clean stop checkpoints
// the HEAD where it is, and TestCrashKill9Head requires that checkpoint
// at the mirror's HEAD. The HEAD follows the mirror asynchronously; at
// load 40 it was 25 MiB of WAL behind the durable LSN when the stop
// came ("the shutdown checkpoint holds 2 tables at 0/BCF6CFB0, HEAD is
// 0/BE873F70"). A HEAD that failed (phase "failed") is not waited for.
func catchUpAndStop(t *testing.T, url, base string, p *proc) wal.LSN {
	t.Helper()
	// The target is read inside the UPDATE's transaction, after its row
	// change: its commit ends past the target, and a slot created after
	// it holds an xid (a fresh copy after kills) waits for that commit
	// before its consistent point. A target read before the UPDATE let a
	// fresh copy's slot land between the two: durable past the target,
	// without the UPDATE.
	target := queryLSN(t, url, "WITH u AS (UPDATE counter SET k = k + 1 WHERE id = 1 RETURNING 1) SELECT pg_current_wal_insert_lsn()::text FROM u")
	lastLog := time.Now()
	var best, bestHead wal.LSN
	advanced := time.Now()
	waitFor(t, "catch up after the kills", 30*time.Minute, func() bool {
		if time.Since(lastLog) > 10*time.Second {
			lastLog = time.Now()
			_, body := httpBodyNoT(base + "/api/status")
			t.Logf("catching up to %s: %s", target, body)
		}
		var st struct {
			Durable string `json:"durable_lsn"`
			Phase   string `json:"phase"`
			Head    *struct {
				Phase string `json:"phase"`
				LSN   string `json:"lsn"`
			} `json:"head"`
		}
		if err := getJSON(base+"/api/status", &st); err != nil {
			return false
		}
		l, _ := wal.ParseLSN(st.Durable)
		var hl wal.LSN
		if st.Head != nil {
			hl, _ = wal.ParseLSN(st.Head.LSN)
		}
		// Progress is either LSN moving (the HEAD follows the durable one).
		if l > best || hl > bestHead {
			best, bestHead, advanced = max(best, l), max(bestHead, hl), time.Now()
		} else if time.Since(advanced) > daemontest.Ceiling {
			t.Fatalf("catch up after the kills: no progress for %s (durable LSN %s, in-memory HEAD %+v; target %s)", daemontest.Ceiling, st.Durable, st.Head, target)
		}
		headDone := st.Head == nil || st.Head.Phase == "failed" || hl > target
		return st.Phase == "streaming" && l > target && headDone
	})
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(t, daemontest.Ceiling); code != 0 { // the clean stop checkpoints: over 60 s at load 40
		t.Fatalf("exit %d\n%s", code, p.output())
	}
	return target
}

// waitRemoteDurable waits until the sidecar at base reports a
// remote-durable LSN at or past target, and returns it.
func waitRemoteDurable(t *testing.T, what, base string, target wal.LSN, limit time.Duration) wal.LSN {
	t.Helper()
	var got wal.LSN
	waitFor(t, what, limit, func() bool {
		var st struct {
			Remote *struct {
				Durable string `json:"remote_durable_lsn"`
			} `json:"remote"`
		}
		if getJSON(base+"/api/status", &st) != nil || st.Remote == nil {
			return false
		}
		got, _ = wal.ParseLSN(st.Remote.Durable)
		return got >= target
	})
	return got
}

// waitDurable waits until the sidecar at base reports a durable LSN at or
// past target.
func waitDurable(t *testing.T, what, base string, target wal.LSN, limit time.Duration) {
	t.Helper()
	waitFor(t, what, limit, func() bool {
		var st struct {
			Durable string `json:"durable_lsn"`
		}
		if getJSON(base+"/api/status", &st) != nil {
			return false
		}
		l, _ := wal.ParseLSN(st.Durable)
		return l >= target
	})
}
