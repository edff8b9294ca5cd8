// Package torture is the hostile probe of issue 16 as a reproducible
// suite over internal/pgtest (loopback only, its own PostgreSQL cluster).
//
// TestTorture: a seeded run of a sidecar daemon (in-process) under a
// write workload whose every transaction bumps one counter, while faults
// are injected (PostgreSQL fast and immediate restarts, walsender
// terminations, TCP cuts of every connection through an in-test proxy,
// resyncs of the hostile table and GCs requested through the API) and
// malformed API requests and bad refs are sent. Names and values are
// hostile (quotes, dots, semicolons, spaces, non-ASCII) through copy,
// stream, diff and verify.
//
// crash_test.go, the crash loops under the same workload: TestKillLoop
// (SIGKILL of the real sidecar binary, built by the test), TestPowerCutLoop
// (the test binary re-executed as the daemon with an
// internal/testkit/powercut.Syncer; SIGKILL, then every write after its last
// sync is dropped), TestPowerCutWithoutSyncIsCaught (the sync removed
// through the seam: the checks must notice), TestWrongDataDirAndSlotLoss
// and TestDiskFull (a size-limited tmpfs; root only). tls_test.go:
// TestTLSVerifyFull with a CA the test makes. The daemons run in strict
// mode (mirror.Options.StrictChecks) where the test builds them.
//
// After every run: every table equals PostgreSQL row by row, the counter
// reads k, k+1, k+2, … across the mirror's versions (no version missing
// or doubled), `verify` says equal, no client error got a 5xx and no
// answer or log held a stack trace.
//
// Knobs: -seed or TORTURE_SEED replays a run (its seed is printed first),
// TORTURE_FAULTS sets TestTorture's number of faults (default 6; `go test
// -short` uses 3), TORTURE_KINDS limits them to a comma-separated list of
// kinds, TORTURE_REPORT names a Markdown file to write its figures to,
// TORTURE_FULL=1 reads the counter at every version (not 100 samples);
// -torture.long runs the crash loops long (100 kills, 20 power cuts;
// short: 5 and 3), TORTURE_CRASHES=N sets their count.
package torture
