package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
)

// The initial-copy benchmark of issue 24 item 5: at each table size, in
// one run and alternating, PostgreSQL's own `\copy t TO /dev/null` (psql,
// text and binary) and the sidecar's initial copy from daemon.Run on an
// empty data directory to the table ready (tree recorded) and to HEAD
// ready (the in-memory HEAD holds every row). The target is the sidecar's
// copy → HEAD ready ≤ 1.5× the text `\copy`.

// CopyOptions configure RunCopy.
type CopyOptions struct {
	Sizes []int // table sizes, ascending: the table grows between them
	Reps  int
	Dir   string
	// MemoryLimit is the sidecar's memory.limit ("" = its default).
	MemoryLimit string
	// ProfileDir, if set, receives a CPU profile, an allocation profile
	// and the daemon's log of each sidecar copy.
	ProfileDir string
	Logf       func(string, ...any)
}

// CopyCell is one table size's samples.
type CopyCell struct {
	Rows    int
	PGBytes int64           // pg_total_relation_size(t)
	Text    []time.Duration // psql \copy t TO /dev/null
	Binary  []time.Duration // psql \copy t TO /dev/null (FORMAT binary)
	Ready   []time.Duration // daemon.Run → table ready (status)
	Head    []time.Duration // daemon.Run → HEAD holds every row
	CPU     []time.Duration // the process's CPU over Head
	PeakRSS []int64         // VmHWM over the sidecar's copy
	// Faults is the process's minor page faults over Head, Sys its system
	// CPU: on this VM a first touch of a page costs ~20 µs of CPU.
	Faults  []int64
	Sys     []time.Duration
	LoadAvg []string // at each repetition's start
	// TextCPU is the text `\copy`'s CPU: psql's and the server's over
	// it (pgcpu.go); PGCPU the server's over the sidecar's copy (its COPY
	// backends and walsender), not in CPU.
	TextCPU   []time.Duration
	PGCPU     []time.Duration
	Generated time.Duration // loading the rows into PostgreSQL
}

// CopyReport is what RunCopy measured.
type CopyReport struct {
	Env         Env
	Started     time.Time
	Took        time.Duration
	Reps        int
	PGVersion   string
	MemoryLimit string
	Cells       []*CopyCell
	EndLoad     string
}

// RunCopy runs the benchmark.
func RunCopy(ctx context.Context, o CopyOptions) (*CopyReport, error) {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	sizes := slices.Clone(o.Sizes)
	slices.Sort(sizes)
	rep := &CopyReport{Env: CollectEnv(ctx), Started: time.Now().UTC(), Reps: o.Reps, MemoryLimit: o.MemoryLimit}
	scratch, pg, url, cleanup, err := startScratch(ctx, o.Dir, "sidecar-bench-copy-", replDB, o.Logf)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	conn, err := connectScratch(ctx, url, readsDDL+"; CREATE PUBLICATION "+replPub+" FOR TABLE t, marker", &rep.PGVersion)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	srv, err := serverOf(ctx, conn)
	if err != nil {
		return nil, err
	}
	have := 0
	for _, n := range sizes {
		c := &CopyCell{Rows: n}
		rep.Cells = append(rep.Cells, c)
		o.Logf("loading rows %d..%d", have+1, n)
		t0 := time.Now()
		if err := insertSeedRows(ctx, conn, have+1, n); err != nil {
			return nil, err
		}
		for _, q := range []string{"VACUUM (ANALYZE) t", "CHECKPOINT"} {
			if _, err := conn.Exec(ctx, q); err != nil {
				return nil, fmt.Errorf("%s: %w", q, err)
			}
		}
		c.Generated, have = time.Since(t0), n
		_ = conn.QueryRow(ctx, "SELECT pg_total_relation_size('t')").Scan(&c.PGBytes)
		for i := range o.Reps {
			c.LoadAvg = append(c.LoadAvg, loadAvg())
			s0, err := srv.read()
			if err != nil {
				return nil, err
			}
			text, textCPU, err := psqlCopy(ctx, pg, url, `\copy t TO '/dev/null'`)
			if err != nil {
				return nil, err
			}
			s1, err := srv.read()
			if err != nil {
				return nil, err
			}
			bin, _, err := psqlCopy(ctx, pg, url, `\copy t TO '/dev/null' WITH (FORMAT binary)`)
			if err != nil {
				return nil, err
			}
			c.Text, c.Binary = append(c.Text, text), append(c.Binary, bin)
			c.TextCPU = append(c.TextCPU, textCPU+s1-s0)
			s2, err := srv.read()
			if err != nil {
				return nil, err
			}
			if err := copySidecar(ctx, o, scratch, url, conn, c, i); err != nil {
				return nil, err
			}
			s3, err := srv.read()
			if err != nil {
				return nil, err
			}
			c.PGCPU = append(c.PGCPU, s3-s2)
			o.Logf("%d rows rep %d (load %s): \\copy text %s (CPU %s: psql and server), binary %s; sidecar ready %s, HEAD %s (CPU %s, sys %s, %d minor faults, peak RSS %s; server CPU %s)",
				n, i+1, c.LoadAvg[i], fmtDur(text), fmtDur(c.TextCPU[i]), fmtDur(bin), fmtDur(c.Ready[i]), fmtDur(c.Head[i]), fmtDur(c.CPU[i]), fmtDur(c.Sys[i]), c.Faults[i], fmtBytes(c.PeakRSS[i]), fmtDur(c.PGCPU[i]))
		}
	}
	rep.EndLoad = loadAvg()
	rep.Took = time.Since(rep.Started)
	return rep, nil
}

// psqlCopy times one psql run of a \copy meta-command (process start
// included: psql connects, COPY runs, rows written to /dev/null), and
// returns psql's CPU (user and system).
func psqlCopy(ctx context.Context, pg *pgtest.Cluster, url, meta string) (wall, cpu time.Duration, err error) {
	tool, err := pg.Tool("psql")
	if err != nil {
		return 0, 0, err
	}
	cmd := exec.CommandContext(ctx, tool, "-X", "-q", "-d", url, "-c", meta)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("psql %s: %w: %s", meta, err, out.String())
	}
	wall = time.Since(t0)
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// copySidecar runs one sidecar initial copy on a fresh data directory and
// slot, timing it to the table ready and to HEAD ready, then stops it and
// drops its slot.
func copySidecar(ctx context.Context, o CopyOptions, scratch, url string, conn *pgx.Conn, c *CopyCell, i int) error {
	slot := fmt.Sprintf("copy_%d_%d", c.Rows, i)
	dataDir := filepath.Join(scratch, slot)
	cfg, err := sidecarConfigLimit(scratch, url, slot, dataDir, o.MemoryLimit)
	if err != nil {
		return err
	}
	stopProf, err := startWindowProfile(o.ProfileDir, fmt.Sprintf("copy-%d-%d", c.Rows, i+1))
	if err != nil {
		return err
	}
	models := make(chan *head.Model, 1)
	if err := resetPeakRSS(); err != nil {
		o.Logf("%v", err)
	}
	var tm timer
	tm.noWait = true
	tm.start()
	sc, err := startSidecarWith(ctx, cfg, filepath.Join(scratch, slot+".log"), func(do *daemon.Options) {
		do.OnHead = func(m *head.Model) { models <- m }
	})
	if err != nil {
		stopProf()
		return err
	}
	defer func() {
		if sc != nil {
			sc.stop() //nolint:errcheck // an error path: the run fails anyway
		}
	}()
	ready, err := waitReadyEvery(ctx, sc, 50*time.Millisecond)
	if err != nil {
		stopProf()
		return err
	}
	var model *head.Model
	select {
	case model = <-models:
	case <-ctx.Done():
		stopProf()
		return ctx.Err()
	}
	for model.Len("public.t") != c.Rows {
		if err := sc.failed(); err != nil {
			stopProf()
			return err
		}
		if err := sleepCtx(ctx, time.Millisecond); err != nil {
			stopProf()
			return err
		}
	}
	tm.stop()
	stopProf()
	peak, err := readPeakRSS()
	if err != nil {
		o.Logf("%v", err)
	}
	c.Ready, c.Head, c.CPU, c.PeakRSS = append(c.Ready, ready), append(c.Head, tm.wall), append(c.CPU, tm.cpu), append(c.PeakRSS, peak)
	c.Faults, c.Sys = append(c.Faults, tm.faults), append(c.Sys, tm.sys)
	err = sc.stop()
	sc = nil
	if err != nil {
		return err
	}
	if o.ProfileDir != "" {
		// The daemon's log (its copy's phases) beside the profiles.
		if b, err := os.ReadFile(filepath.Join(scratch, slot+".log")); err == nil {
			_ = os.WriteFile(filepath.Join(o.ProfileDir, fmt.Sprintf("copy-%d-%d.log", c.Rows, i+1)), b, 0o644)
		}
	}
	if _, err := conn.Exec(ctx, `SELECT pg_drop_replication_slot($1)`, slot); err != nil {
		return fmt.Errorf("drop slot %s: %w", slot, err)
	}
	return os.RemoveAll(dataDir)
}

// waitReadyEvery is sidecarRun.waitCopied polling every interval (the
// status walks the heap's pages for its memory figures: polled every 5 ms
// it costs the copy measurable CPU) and returning the time since the
// daemon started.
func waitReadyEvery(ctx context.Context, sc *sidecarRun, interval time.Duration) (time.Duration, error) {
	for {
		if err := sc.failed(); err != nil {
			return 0, err
		}
		st, err := sc.status(ctx)
		if err == nil && st.Phase == "streaming" && len(st.Tables) == 2 {
			ok := true
			for _, t := range st.Tables {
				ok = ok && t.State == "ready"
			}
			if ok {
				return time.Since(sc.started), nil
			}
		}
		if err := sleepCtx(ctx, interval); err != nil {
			return 0, fmt.Errorf("sidecar copy not done: %w", err)
		}
	}
}

// startWindowProfile starts a CPU profile written to dir/name.cpu.pprof;
// the returned stop ends it and writes the allocation profile
// dir/name.allocs.pprof. With dir empty it does nothing.
func startWindowProfile(dir, name string) (stop func(), err error) {
	if dir == "" {
		return func() {}, nil
	}
	base := filepath.Join(dir, name)
	f, err := os.Create(base + ".cpu.pprof")
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		if err := writeAllocs(base + ".allocs.pprof"); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}, nil
}

// WriteCopyMarkdown renders the report.
func WriteCopyMarkdown(w io.Writer, rep *CopyReport, command string) error {
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("# Initial copy benchmark: the sidecar's copy vs PostgreSQL's own `\\copy … TO /dev/null`\n\n")
	limit := rep.MemoryLimit
	if limit == "" {
		limit = "default (auto)"
	}
	p("Measured on %s (UTC) at revision `%s`%s by `%s`, %d repetitions per size; PostgreSQL %s. Machine: %s, %d CPUs (GOMAXPROCS %d), %s, go %s. The sidecar's memory.limit: %s. Load average (1, 5, 15 min) at the end: %s.\n\n",
		rep.Started.Format("2006-01-02 15:04"), rep.Env.Commit, dirtyMark(rep.Env), command, rep.Reps, rep.PGVersion, rep.Env.CPU, rep.Env.NumCPU, rep.Env.GOMAXPROCS, rep.Env.MemTotal, rep.Env.GoVersion, limit, rep.EndLoad)
	p("Table `t(id bigint PRIMARY KEY, k text, v text, score int, grp int)` (the seed-003 shape of `sidecar-bench apply`/`reads`), loaded by INSERT … generate_series, VACUUM ANALYZE, CHECKPOINT; it grows from one size to the next. Per repetition, alternating on the same server: `psql -c \"\\copy t TO '/dev/null'\"` (text) and the same `WITH (FORMAT binary)` (process start included), then the sidecar in process (`daemon.Run`) on an empty data directory with a fresh slot: *ready* = start → `/api/status` streaming with the table ready (tree recorded; polled every 50 ms), *HEAD* = start → the in-memory HEAD holds every row (polled every 1 ms) (the copy's end to end time; the target is HEAD ≤ 1.5× the text `\\copy`). CPU is the whole process's over the HEAD window (PostgreSQL's backends not included: *server CPU* is the server's over it — postmaster, live and reaped backends, from /proc); `\\copy` CPU is psql's plus the server's over the text `\\copy`; peak RSS is the process's VmHWM over it. Median (min–max).\n\n")
	p("| rows | PostgreSQL table+index | `\\copy` text | `\\copy` CPU | `\\copy` binary | sidecar → ready | sidecar → HEAD | sidecar CPU | of which system | server CPU | minor faults | peak RSS | HEAD ÷ `\\copy` text | CPU ÷ `\\copy` CPU | target ≤ 1.5× met? |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range rep.Cells {
		r := float64(median(c.Head)) / float64(median(c.Text))
		cr := "—"
		if tc := median(c.TextCPU); tc > 0 {
			cr = fmt.Sprintf("%.2f×", float64(median(c.CPU))/float64(tc))
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %.2f× | %s | %s |\n", fmtRecords(c.Rows), fmtBytes(c.PGBytes), span3(c.Text), fmtDur(median(c.TextCPU)), span3(c.Binary), span3(c.Ready), span3(c.Head),
			fmtDur(median(c.CPU)), fmtDur(median(c.Sys)), fmtDur(median(c.PGCPU)), median(c.Faults), fmtBytes(slices.Max(c.PeakRSS)), r, cr, mark(r <= 1.5))
	}
	p("\nLoad average (1, 5, 15 min) at each repetition's start:\n\n")
	for _, c := range rep.Cells {
		p("- %s rows: %s\n", fmtRecords(c.Rows), strings.Join(c.LoadAvg, "; "))
	}
	p("\nRun took %s.\n", fmtDur(rep.Took))
	_, err := io.WriteString(w, b.String())
	return err
}
