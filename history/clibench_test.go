package history_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/server"
)

var (
	cliRows  = flag.Int("history.cli.rows", 0, "run TestCLIBench on a table of this many rows (0: skip)")
	cliRuns  = flag.Int("history.cli.runs", 3, "TestCLIBench: runs of each command (the median is reported)")
	benchOut = flag.String("history.bench.json", "", "TestCLIBench, TestRefBench, TestGCBench: append the measured cells as JSON lines to this file")
)

// TestCLIBench measures issue #7's history targets end to end through the
// real `sidecar` binary: it builds the binary, writes TestHistoryBench's
// history (a table of -history.cli.rows rows; version A; 10k random
// upserts in 10 commits; version B; a 10k-row bad DELETE; 10k later
// writes) into a data directory, closes it, and runs each command as a
// separate process with no daemon listening, so every run pays process
// start-up, config loading and opening the data directory. Each command
// runs -history.cli.runs times; the median of the time to the first byte
// on stdout and of the time to exit is reported. Every run's output is
// checked against the history it was made from (row and statement counts,
// conflicts), so a fast wrong answer fails.
//
//	go test ./history -run TestCLIBench -history.cli.rows 10000000 -v -timeout 1h
func TestCLIBench(t *testing.T) {
	n := *cliRows
	if n == 0 {
		t.Skip("set -history.cli.rows N")
	}
	bin := buildSidecar(t)
	const changes = 10_000
	f := historytest.NewSized(t, 256<<20)
	h := f.BuildRevertHistory(n, changes)
	a, b, before, bad := h.A, h.B, h.Before, h.Bad
	changed, deleted, both := h.Changed, h.Deleted, h.Conflicts()
	t.Logf("copy of %d rows: %s; history written in %s: A=%s B=%s (%d rows differ), before=%s bad=%s (%d deleted, %d re-written later)",
		n, h.Copy, h.Total, a, b, len(changed), before, bad, len(deleted), both)
	rowsDiff := len(changed)
	cells := []cliCell{
		{name: "sidecar version (process start-up)", args: []string{"version"}, check: wantLines(3)},
		{name: "sidecar log -n 1 (start-up + open the data directory)", args: []string{"log", "-n", "1"}, check: wantLines(1)},
		{name: "sidecar log -n 20", args: []string{"log", "-n", "20"}, check: wantLines(20)},
		{name: "sidecar diff A B --format sql", args: []string{"diff", a, b, "--format", "sql"}, target: time.Second, row: "\nUPDATE ",
			check: wantStatements(0, rowsDiff, 0)},
		{name: "sidecar diff A B --format json", args: []string{"diff", a, b, "--format", "json"}, target: time.Second, row: `"type":"row"`,
			check: wantJSONRows(rowsDiff)},
		{name: "sidecar diff A B (table)", args: []string{"diff", a, b}, target: time.Second, row: "\n>",
			check: wantLinePrefix(">", rowsDiff)},
		{name: "sidecar diff A B --stat", args: []string{"diff", a, b, "--stat"}, target: 500 * time.Millisecond,
			check: wantContains(fmt.Sprintf("0 rows added, 0 removed, %d changed", rowsDiff))},
		{name: "sidecar revert before bad --format sql", args: []string{"revert", before, bad, "--format", "sql"}, target: 2 * time.Second, row: "\nINSERT ",
			exit: min(both, 1), check: wantStatements(len(deleted)-both, 0, 0)},
	}
	throughDaemon(t, bin, f, cells[1:])
	dir := f.Dir
	f.Close()
	t.Logf("data directory: %s on disk (%s apparent)", humanBytes(diskBytes(dir)), humanBytes(dirBytes(dir)))
	cfg := writeBenchConfig(t, dir, "127.0.0.1:1")
	for _, c := range cells {
		res := runCell(t, bin, cfg, c, *cliRuns)
		t.Log(res)
		recordCell(t, res)
	}
	coldAndWarm(t, dir, a, b, rowsDiff)
}

// throughDaemon runs cells with a daemon answering: the fixture's history
// service served over the HTTP API (server.RegisterHistory), as `sidecar
// run` serves it, so each command is a process start plus API calls to a
// process whose node cache is warm (it wrote the history).
func throughDaemon(t *testing.T, bin string, f *historytest.Fixture, cells []cliCell) {
	t.Helper()
	srv, err := server.Listen(server.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	server.RegisterHistory(srv, history.New(f.DB, f.Mirror))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("daemon API: %v", err)
		}
	}()
	cfg := writeBenchConfig(t, f.Dir, srv.Addr())
	for _, c := range cells {
		c.name = "via daemon: " + strings.Replace(c.name, "open the data directory", "API round trip", 1)
		res := runCell(t, bin, cfg, c, *cliRuns)
		t.Log(res)
		recordCell(t, res)
	}
}

// coldAndWarm splits a CLI diff's time: it opens the data directory
// in-process as the CLI does (store and mirror defaults), then diffs A→B
// as JSON lines twice: the first diff reads every node it needs from
// Badger (an empty decoded-node cache, as in a fresh process), the
// second finds them cached (as the service-level figures did).
func coldAndWarm(t *testing.T, dir, a, b string, rows int) {
	t.Helper()
	ctx := t.Context()
	res := cellResult{Bench: "cli", Cell: "in-process: open, cold diff, warm diff (JSON lines)", Runs: 1, LoadStart: loadavg(), At: time.Now().UTC()}
	start := time.Now()
	db, m, close := mirrortest.Open(t, dir)
	defer close()
	open := time.Since(start)
	svc := history.New(db, m)
	var took [2]time.Duration
	for i := range took {
		jw, err := history.NewDiffWriter("json", io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		sum, err := svc.Diff(ctx, history.DiffRequest{From: a, To: b}, jw.Write)
		if err != nil {
			t.Fatal(err)
		}
		took[i] = time.Since(start)
		if sum.Rows != int64(rows) {
			t.Fatalf("diff: %d rows, want %d", sum.Rows, rows)
		}
	}
	res.LoadEnd = loadavg()
	res.Median = ms(open + took[0])
	res.Note = fmt.Sprintf("open %.1f ms; cold diff %.1f ms; warm diff %.1f ms", ms(open), ms(took[0]), ms(took[1]))
	t.Log(res)
	recordCell(t, res)
}

// cliCell is one command of TestCLIBench: its arguments, the exit status
// it must end with, a check of its whole stdout, and its target (0: none).
type cliCell struct {
	name   string
	args   []string
	exit   int
	check  func(out []byte) error
	target time.Duration
	// row marks the first row in the output (e.g. "\nUPDATE "): the time
	// to it is reported beside the time to the first byte, which may be
	// a header written before the diff starts.
	row string
}

// cellResult is one measured cell: medians over runs and the machine load
// around them. It is also the JSON line written to -history.bench.json.
type cellResult struct {
	Bench     string    `json:"bench"`
	Cell      string    `json:"cell"`
	Runs      int       `json:"runs"`
	FirstByte []float64 `json:"first_byte_ms,omitempty"` // per run
	Total     []float64 `json:"total_ms,omitempty"`      // per run
	FirstRow  []float64 `json:"first_row_ms,omitempty"`  // per run
	MedianFB  float64   `json:"median_first_byte_ms,omitempty"`
	MedianFR  float64   `json:"median_first_row_ms,omitempty"`
	Median    float64   `json:"median_ms"`
	MinMS     float64   `json:"min_ms,omitempty"`
	MaxMS     float64   `json:"max_ms,omitempty"`
	OutBytes  int       `json:"out_bytes,omitempty"`
	TargetMS  float64   `json:"target_ms,omitempty"`
	Met       *bool     `json:"met,omitempty"`
	LoadStart string    `json:"loadavg_start"`
	LoadEnd   string    `json:"loadavg_end"`
	Note      string    `json:"note,omitempty"`
	At        time.Time `json:"at"`
}

func (r cellResult) String() string {
	var b strings.Builder
	if r.Median < 1 {
		fmt.Fprintf(&b, "%-58s median %9.4f ms", r.Cell, r.Median)
	} else {
		fmt.Fprintf(&b, "%-58s median %9.2f ms", r.Cell, r.Median)
	}
	if r.MedianFB > 0 {
		fmt.Fprintf(&b, " (first byte %.2f ms", r.MedianFB)
		if r.MedianFR > 0 {
			fmt.Fprintf(&b, ", first row %.2f ms", r.MedianFR)
		}
		b.WriteString(")")
	}
	if len(r.Total) > 0 {
		fmt.Fprintf(&b, " runs %v", r.Total)
	} else if r.Runs > 1 {
		fmt.Fprintf(&b, " of %d runs (min %.4f, max %.4f ms)", r.Runs, r.MinMS, r.MaxMS)
	}
	if r.Met != nil {
		fmt.Fprintf(&b, " target %.0f ms met=%v", r.TargetMS, *r.Met)
	}
	if r.OutBytes > 0 {
		fmt.Fprintf(&b, " out %s", humanBytes(int64(r.OutBytes)))
	}
	if r.Note != "" {
		fmt.Fprintf(&b, " %s", r.Note)
	}
	fmt.Fprintf(&b, " load %s → %s", r.LoadStart, r.LoadEnd)
	return b.String()
}

// runCell runs c's command runs times, each a fresh process reading its
// stdout through a pipe: the clock starts before the process is started
// and stops at the first byte read and when the process has exited.
func runCell(t *testing.T, bin, cfg string, c cliCell, runs int) cellResult {
	t.Helper()
	res := cellResult{Bench: "cli", Cell: c.name, Runs: runs, LoadStart: loadavg(), At: time.Now().UTC()}
	for i := range runs {
		cmd := exec.CommandContext(t.Context(), bin, append(c.args, "--config", cfg)...)
		cmd.Env = cleanEnv()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatalf("%s: start: %v", c.name, err)
		}
		var out bytes.Buffer
		var fb, fr time.Duration
		buf := make([]byte, 64<<10)
		for {
			k, err := pipe.Read(buf)
			if k > 0 {
				now := time.Since(start)
				if fb == 0 {
					fb = now
				}
				from := max(0, out.Len()-len(c.row))
				out.Write(buf[:k])
				if c.row != "" && fr == 0 && bytes.Contains(out.Bytes()[from:], []byte(c.row)) {
					fr = now
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: read stdout: %v", c.name, err)
			}
		}
		err = cmd.Wait()
		total := time.Since(start)
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if code != c.exit {
			t.Fatalf("%s run %d: exit %d, want %d; stderr:\n%s", c.name, i, code, c.exit, stderr.String())
		}
		if c.check != nil {
			if err := c.check(out.Bytes()); err != nil {
				t.Fatalf("%s run %d: output (%d bytes) wrong: %v", c.name, i, out.Len(), err)
			}
		}
		res.OutBytes = out.Len()
		res.Total = append(res.Total, ms(total))
		if fb > 0 {
			res.FirstByte = append(res.FirstByte, ms(fb))
		}
		if fr > 0 {
			res.FirstRow = append(res.FirstRow, ms(fr))
		}
	}
	res.LoadEnd = loadavg()
	res.Median = median(res.Total)
	if len(res.FirstByte) > 0 {
		res.MedianFB = median(res.FirstByte)
	}
	if len(res.FirstRow) > 0 {
		res.MedianFR = median(res.FirstRow)
	}
	if c.target > 0 {
		res.TargetMS = ms(c.target)
		met := res.Median <= res.TargetMS
		res.Met = &met
	}
	return res
}

// buildSidecar builds the sidecar binary from this tree into a temporary
// directory (with the build's VCS stamp, as a user's build would be).
func buildSidecar(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "sidecar")
	start := time.Now()
	cmd := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "github.com/sidecar-dev/sidecar/cmd/sidecar")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/sidecar: %v\n%s", err, out)
	}
	t.Logf("built %s in %s", bin, time.Since(start))
	return bin
}

// writeBenchConfig writes a config for the data directory dir and the API
// address listen. With nothing listening there (e.g. port 1) commands open
// dir themselves; the PostgreSQL URL is never dialled by the history
// commands.
func writeBenchConfig(t *testing.T, dir, listen string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "sidecar.yaml")
	body := fmt.Sprintf("postgres:\n  url: postgres://bench@127.0.0.1:1/db\ntables: [\"*\"]\ndata_dir: %s\nlisten: %s\nlog:\n  level: warn\n", dir, listen)
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// cleanEnv is the environment without SIDECAR_* overrides, so only the
// config file decides.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SIDECAR_") {
			env = append(env, kv)
		}
	}
	return env
}

func wantLines(n int) func([]byte) error {
	return func(out []byte) error {
		if got := bytes.Count(out, []byte("\n")); got < n {
			return fmt.Errorf("%d lines, want at least %d", got, n)
		}
		return nil
	}
}

func wantContains(s string) func([]byte) error {
	return func(out []byte) error {
		if !bytes.Contains(out, []byte(s)) {
			return fmt.Errorf("no %q in %.300q", s, out)
		}
		return nil
	}
}

// wantStatements checks a SQL patch: one transaction holding exactly this
// many INSERT, UPDATE and DELETE statements.
func wantStatements(inserts, updates, deletes int) func([]byte) error {
	return func(out []byte) error {
		var ins, upd, del int
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<20)
		first, last := "", ""
		for sc.Scan() {
			l := sc.Text()
			if first == "" {
				first = l
			}
			last = l
			switch {
			case strings.HasPrefix(l, "INSERT INTO "):
				ins++
			case strings.HasPrefix(l, "UPDATE "):
				upd++
			case strings.HasPrefix(l, "DELETE FROM "):
				del++
			}
		}
		if first != "BEGIN;" || last != "COMMIT;" {
			return fmt.Errorf("patch starts %q and ends %q, want BEGIN; … COMMIT;", first, last)
		}
		if ins != inserts || upd != updates || del != deletes {
			return fmt.Errorf("%d INSERT, %d UPDATE, %d DELETE; want %d, %d, %d", ins, upd, del, inserts, updates, deletes)
		}
		return nil
	}
}

// wantJSONRows checks JSON lines: every line parses and n are changed rows.
func wantJSONRows(n int) func([]byte) error {
	return func(out []byte) error {
		got := 0
		for l := range bytes.Lines(out) {
			var e struct{ Type, Op string }
			if err := json.Unmarshal(l, &e); err != nil {
				return fmt.Errorf("line %.200q: %w", l, err)
			}
			if e.Type == "row" {
				if e.Op != "changed" {
					return fmt.Errorf("row op %q, want changed", e.Op)
				}
				got++
			}
		}
		if got != n {
			return fmt.Errorf("%d rows, want %d", got, n)
		}
		return nil
	}
}

func wantLinePrefix(p string, n int) func([]byte) error {
	return func(out []byte) error {
		got := 0
		for l := range bytes.Lines(out) {
			if bytes.HasPrefix(l, []byte(p)) {
				got++
			}
		}
		if got != n {
			return fmt.Errorf("%d lines start with %q, want %d", got, p, n)
		}
		return nil
	}
}

// loadavg is the first three fields of /proc/loadavg ("?" elsewhere).
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// recordCell appends r to -history.bench.json as one JSON line.
func recordCell(t *testing.T, r cellResult) {
	t.Helper()
	if *benchOut == "" {
		return
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	fh, err := os.OpenFile(*benchOut, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.Write(append(b, '\n')); err != nil {
		fh.Close()
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
}

// dirBytes is the size of the regular files under dir (Badger's value
// log is preallocated sparse on some systems; this counts apparent size).
func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// diskBytes is the space the files under dir take on disk (allocated
// blocks): what `du` reports, and what a value-log GC gives back.
func diskBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				n += st.Blocks * 512
			} else {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
