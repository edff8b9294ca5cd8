package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/bench/tpch"
	"github.com/sidecar-dev/sidecar/internal/sqldiff"
)

// The TPC-H benchmark of issue 22 item 7: the eight tables generated at a
// scale factor (bench/tpch), loaded into PostgreSQL and followed by a
// sidecar; the 22 queries on PostgreSQL and on the SQL port, alternating
// which runs first, each answer compared with PostgreSQL's.

// TPCHOptions configure RunTPCH.
type TPCHOptions struct {
	SF      float64
	Reps    int
	Timeout time.Duration // per query and side
	Seed    uint64
	// FoldDates runs the queries with their date arithmetic folded into
	// literals (tpch.FoldDates).
	FoldDates bool
	Dir       string
	Logf      func(string, ...any)
	// DuckDB is the path of the DuckDB anchor program (bench/duckdb;
	// empty: no DuckDB column); DuckDBMemory its memory_limit.
	DuckDB       string
	DuckDBMemory string
	// MemoryLimit is the sidecar's memory.limit (empty: auto); WorkMem
	// its sessions' sidecar.work_mem (empty: the executor's default).
	MemoryLimit string
	WorkMem     string
	// Queries are the query numbers to run (none: all 22), for an A/B
	// run of the queries a change is about.
	Queries []int
}

// TPCHQuery is one query's cell.
type TPCHQuery struct {
	N        int
	Postgres []time.Duration
	Sidecar  []time.Duration // answered runs only
	// SidecarCPU is this process's CPU time (user + system) during each
	// answered pair: the in-process sidecar's work on the query (plus its
	// background work and the client side of both queries; PostgreSQL's
	// backend is another process). Less sensitive to the machine's load
	// than the wall time.
	SidecarCPU []time.Duration
	// PostgresCPU is the CPU time of every process of PostgreSQL's
	// cluster (the backend, parallel workers, background processes)
	// during the same pairs, read from /proc (pgcpu.go).
	PostgresCPU []time.Duration
	// LoadStart and LoadEnd are the 1-minute load averages when the
	// query's first repetition started and its last one ended.
	LoadStart, LoadEnd string
	Outcome            sqldiff.Outcome // the last run's (identical, refused, …)
	Rows               int
	// DuckDB's times (its anchor's own measure: the statement and every
	// row fetched), rows, and its error if it failed.
	DuckDB     []time.Duration
	DuckDBRows int
	DuckDBErr  string
}

// TPCHReport is what RunTPCH measured.
type TPCHReport struct {
	Env       Env
	Started   time.Time
	Took      time.Duration
	SF        float64
	Reps      int
	FoldDates bool
	PGVersion string
	Rows      map[string]int64
	Load      time.Duration // generate + COPY + ANALYZE into PostgreSQL
	Follow    time.Duration // the sidecar's copy until it serves
	Queries   []*TPCHQuery
	// DuckDB: whether the anchor ran, its load (COPY out of PostgreSQL
	// and into DuckDB) and memory use after it.
	DuckDB     bool
	DuckDBLoad time.Duration
	DuckDBMem  string
	// LoadStart and LoadEnd are the load averages when the queries
	// started and when they ended; MemoryLimit and WorkMem the sidecar's.
	LoadStart, LoadEnd   string
	MemoryLimit, WorkMem string
}

// RunTPCH runs the benchmark.
func RunTPCH(ctx context.Context, o TPCHOptions) (*TPCHReport, error) {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	rep := &TPCHReport{Env: CollectEnv(ctx), Started: time.Now().UTC(), SF: o.SF, Reps: o.Reps, FoldDates: o.FoldDates, Rows: map[string]int64{},
		MemoryLimit: o.MemoryLimit, WorkMem: o.WorkMem}
	scratch, pg, url, cleanup, err := startScratch(ctx, o.Dir, "sidecar-bench-tpch-", "tpch", o.Logf)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	rep.PGVersion = pg.ServerVersionString()
	pgCPU, err := newPGCPUMeter(filepath.Join(pg.Dir(), "data"))
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := loadTPCH(ctx, url, o, rep); err != nil {
		return nil, err
	}
	rep.Load = time.Since(start)
	o.Logf("loaded SF %g in %s: %v", o.SF, rep.Load.Round(time.Millisecond), rep.Rows)
	start = time.Now()
	tables := tpch.PublicTables()
	// The queries start once the in-memory HEAD holds the loaded version:
	// they measure the steady state (its typed pages), not the trees read
	// while the HEAD is still applying the copy (PostgreSQL's cache is
	// warm from the load too).
	sc, err := sqldiff.Follow(ctx, sqldiff.FollowOptions{PGURL: url, Tables: tables, Dir: scratch, StatementTimeout: o.Timeout, MemoryLimit: o.MemoryLimit, WarmHead: true,
		// The copy at SF 1 on a loaded machine takes longer than
		// Follow's default 10 min (sessions 13 and 14 failed there).
		Ready: 45 * time.Minute})
	if err != nil {
		return nil, fmt.Errorf("follow: %w", err)
	}
	defer sc.Stop()
	rep.Follow = time.Since(start)
	o.Logf("sidecar serving after %s", rep.Follow.Round(time.Millisecond))
	var duck *duckAnchor
	if o.DuckDB != "" {
		start = time.Now()
		if duck, err = startDuckAnchor(o.DuckDB, url, o.DuckDBMemory, scratch); err != nil {
			return nil, err
		}
		defer duck.close()
		if rep.DuckDBMem, err = duck.load(); err != nil {
			return nil, fmt.Errorf("DuckDB load: %w", err)
		}
		rep.DuckDB, rep.DuckDBLoad = true, time.Since(start)
		o.Logf("DuckDB loaded in %s (memory %s)", rep.DuckDBLoad.Round(time.Millisecond), rep.DuckDBMem)
	}
	pgs, scs := sc.Sessions(url, o.Timeout)
	defer pgs.Close()
	defer scs.Close()
	if o.WorkMem != "" {
		scs.Init = append(scs.Init, "SET sidecar.work_mem = '"+strings.ReplaceAll(o.WorkMem, "'", "")+"'")
	}
	rep.LoadStart = loadAvg()
	for i, q := range tpch.Queries {
		if len(o.Queries) > 0 && !slices.Contains(o.Queries, i+1) {
			continue
		}
		if o.FoldDates {
			q = tpch.FoldDates(q)
		}
		cell := &TPCHQuery{N: i + 1, LoadStart: loadAvg()}
		rep.Queries = append(rep.Queries, cell)
		st := sqldiff.NewStatement(q)
		for r := range o.Reps {
			// DuckDB before the pair on even turns, after it on odd ones.
			duckFirst := (r+i)%2 == 0
			if duckFirst {
				runDuck(duck, cell, q)
			}
			if err := runPair(ctx, pgs, scs, pgCPU, st, cell, q, o.Timeout, (r+i)%2 == 1); err != nil {
				return nil, fmt.Errorf("Q%d: %w", cell.N, err)
			}
			if !duckFirst {
				runDuck(duck, cell, q)
			}
		}
		cell.LoadEnd = loadAvg()
		o.Logf("Q%d: PostgreSQL %s (CPU %s), sidecar %s (CPU %s) (%s %s), DuckDB %s %s, load %s–%s", cell.N, fmtDur(median(cell.Postgres)), fmtDur(median(cell.PostgresCPU)), fmtDur(median(cell.Sidecar)), fmtDur(median(cell.SidecarCPU)), out(cell.Outcome), cell.Outcome.Code, fmtDur(median(cell.DuckDB)), cell.DuckDBErr, cell.LoadStart, cell.LoadEnd)
	}
	rep.LoadEnd = loadAvg()
	rep.Took = time.Since(rep.Started)
	return rep, nil
}

// runPair runs one repetition of a query on PostgreSQL and the sidecar
// (sidecarFirst: which goes first), comparing the answers, with the CPU
// each side spent during the pair.
func runPair(ctx context.Context, pgs, scs *sqldiff.Session, pgCPU *pgCPUMeter, st sqldiff.Statement, cell *TPCHQuery, q string, timeout time.Duration, sidecarFirst bool) error {
	pg0, err := pgCPU.read()
	if err != nil {
		return err
	}
	if cell.Outcome.Class == sqldiff.Refused {
		// A refusal does not change with repetition: PostgreSQL's
		// time is still measured Reps times.
		cell.Postgres = append(cell.Postgres, pgs.Time(ctx, q, timeout))
		pg1, err := pgCPU.read()
		cell.PostgresCPU = append(cell.PostgresCPU, pg1-pg0)
		return err
	}
	cpu0 := processCPU()
	out, pgTook, scTook := sqldiff.Compare(ctx, pgs, scs, st, timeout, sidecarFirst)
	cpu := processCPU() - cpu0
	pg1, err := pgCPU.read()
	if err != nil {
		return err
	}
	cell.Postgres = append(cell.Postgres, pgTook)
	cell.PostgresCPU = append(cell.PostgresCPU, pg1-pg0)
	cell.Outcome = out
	if out.Class == sqldiff.Identical || out.Class == sqldiff.OrderOnly || out.Class.Wrong() {
		cell.Sidecar = append(cell.Sidecar, scTook)
		cell.SidecarCPU = append(cell.SidecarCPU, cpu)
	}
	return nil
}

func out(o sqldiff.Outcome) string { return string(o.Class) }

// loadTPCH loads the generated tables into url.
func loadTPCH(ctx context.Context, url string, o TPCHOptions, rep *TPCHReport) error {
	c, err := pgconn.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer c.Close(context.Background())
	rep.Rows, err = tpch.Load(ctx, c, o.SF, o.Seed)
	return err
}

// TPCHResultName is the report's file name for a run started at t.
func TPCHResultName(t time.Time) string { return "tpch-" + t.Format("2006-01-02") + ".md" }

// WriteTPCHMarkdown writes the report.
func WriteTPCHMarkdown(w io.Writer, rep *TPCHReport, command string) error {
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("# TPC-H: the sidecar's SQL port vs PostgreSQL\n\n")
	measuredBy(&b, rep.Started, rep.Took, command, rep.Env)
	p(".\nMachine: %s, %d CPUs, %s, %s; load average at the end %s; PostgreSQL %s in the same run on the same data.\n\n", rep.Env.CPU, rep.Env.NumCPU, rep.Env.MemTotal, rep.Env.GoVersion, loadAvg(), rep.PGVersion)
	p("Scale factor %g, generated by `bench/tpch` (the specification's cardinalities, keys and value domains; comments from a word list, so not dbgen's bytes: answers are compared between the engines, not with published ones). Rows:", rep.SF)
	for _, t := range tpch.Tables {
		p(" %s %d,", t, rep.Rows[t])
	}
	p(" loaded (generate, COPY, ANALYZE) in %s; the sidecar's copy until it served from its in-memory HEAD took %s. Standard primary keys only, no secondary indexes.\n\n", fmtDur(rep.Load), fmtDur(rep.Follow))
	if rep.FoldDates {
		p("The queries' date arithmetic (`date '…' ± interval '…'`) is folded into date literals (`--fold-dates`).\n\n")
	} else {
		p("The query texts are the specification's, date arithmetic included.\n\n")
	}
	p("Each query %d times per side, alternating which side runs first; median (min–max); sidecar CPU = this process's CPU time during the pair (the sidecar runs in it), median. PostgreSQL CPU = the CPU time of every process of PostgreSQL's throwaway cluster during the same pair (utime+stime of the postmaster's children from /proc, the exited parallel workers through the postmaster's cutime+cstime; 10 ms resolution per process; the walsender the sidecar follows through and the background processes included), median. CPU ratio = sidecar CPU / PostgreSQL CPU, the figure the machine's load moves least; ratio = the wall-time one. Load = the 1-minute load average when the query's first repetition started → when its last one ended. Answer: the sidecar's rows compared with PostgreSQL's in text format (in order under ORDER BY).", rep.Reps)
	if rep.DuckDB {
		p(" DuckDB (the anchor, `bench/duckdb`: an in-memory database in its own process, the eight tables copied from the same PostgreSQL as CSV in %s, memory use after %s) runs each query in the same turns, before the pair on one repetition and after it on the next; its time is the anchor's own measure of the statement and every row fetched; rows = its row count (its answers are not compared: DuckDB's char(n) is varchar, its numeric division scale differs).", fmtDur(rep.DuckDBLoad), rep.DuckDBMem)
	} else {
		p(" DuckDB (the anchor) is not in this run (`--duckdb PATH` adds it).")
	}
	p(" Load average when the queries started %s, at the end %s.", rep.LoadStart, rep.LoadEnd)
	if rep.MemoryLimit != "" || rep.WorkMem != "" {
		p(" The sidecar ran with memory.limit %s and sidecar.work_mem %s.", orAuto(rep.MemoryLimit), orAuto(rep.WorkMem))
	}
	p("\n\n")
	if rep.DuckDB {
		p("| query | PostgreSQL | sidecar | ratio | PostgreSQL CPU | sidecar CPU | CPU ratio | DuckDB | sidecar/DuckDB | DuckDB rows | load | answer |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	} else {
		p("| query | PostgreSQL | sidecar | ratio | PostgreSQL CPU | sidecar CPU | CPU ratio | load | answer |\n|---|---:|---:|---:|---:|---:|---:|---|---|\n")
	}
	answered, equal := 0, 0
	for _, q := range rep.Queries {
		pgm := median(q.Postgres)
		sc, ratio := "–", "–"
		cpu := cpuCells(q)
		if len(q.Sidecar) > 0 {
			answered++
			s := median(q.Sidecar)
			sc = fmt.Sprintf("%s (%s–%s)", fmtDur(s), fmtDur(minDur(q.Sidecar)), fmtDur(maxDur(q.Sidecar)))
			ratio = strconv.FormatFloat(float64(s)/float64(pgm), 'g', 3, 64) + "×"
		}
		if q.Outcome.Class == sqldiff.Identical {
			equal++
		}
		ans := string(q.Outcome.Class)
		if q.Outcome.Code != "" || q.Outcome.Message != "" {
			ans += ": " + strings.ReplaceAll(strings.TrimSpace(q.Outcome.Code+" "+q.Outcome.Message), "|", `\|`)
		}
		if len(ans) > 220 {
			ans = ans[:220] + "…"
		}
		if !rep.DuckDB {
			p("| Q%d | %s (%s–%s) | %s | %s | %s | %s | %s |\n", q.N, fmtDur(pgm), fmtDur(minDur(q.Postgres)), fmtDur(maxDur(q.Postgres)), sc, ratio, cpu, loadCell(q), ans)
			continue
		}
		dk, dratio, drows := "–", "–", "–"
		if len(q.DuckDB) > 0 {
			d := median(q.DuckDB)
			dk = fmt.Sprintf("%s (%s–%s)", fmtDur(d), fmtDur(minDur(q.DuckDB)), fmtDur(maxDur(q.DuckDB)))
			drows = strconv.Itoa(q.DuckDBRows)
			if len(q.Sidecar) > 0 && d > 0 {
				dratio = strconv.FormatFloat(float64(median(q.Sidecar))/float64(d), 'g', 3, 64) + "×"
			}
		} else if q.DuckDBErr != "" {
			dk = "error: " + strings.ReplaceAll(truncate(q.DuckDBErr, 120), "|", `\|`)
		}
		p("| Q%d | %s (%s–%s) | %s | %s | %s | %s | %s | %s | %s | %s |\n", q.N, fmtDur(pgm), fmtDur(minDur(q.Postgres)), fmtDur(maxDur(q.Postgres)), sc, ratio, cpu, dk, dratio, drows, loadCell(q), ans)
	}
	p("\n**%d of %d answered, %d identical to PostgreSQL.**", answered, len(rep.Queries), equal)
	p(" Geometric mean of the ratios (queries both answered): sidecar/PostgreSQL %s", geomeanRatio(rep.Queries, func(q *TPCHQuery) []time.Duration { return q.Postgres }))
	if rep.DuckDB {
		p(", sidecar/DuckDB %s", geomeanRatio(rep.Queries, func(q *TPCHQuery) []time.Duration { return q.DuckDB }))
	}
	p("; of the CPU ratios %s.\n", geomean(rep.Queries, func(q *TPCHQuery) (float64, bool) {
		s, pg := median(q.SidecarCPU), median(q.PostgresCPU)
		return float64(s) / float64(pg), len(q.Sidecar) > 0 && len(q.SidecarCPU) > 0 && pg > 0
	}))
	_, err := io.WriteString(w, b.String())
	return err
}

// measuredBy writes a report's "Measured <when>, <took>, by <command> at
// revision <commit>" opening.
func measuredBy(b *strings.Builder, started time.Time, took time.Duration, command string, env Env) {
	fmt.Fprintf(b, "Measured %s, %s, by `%s` at revision `%s`", started.Format("2006-01-02 15:04 UTC"), fmtDur(took), command, env.Commit)
	if len(env.Dirty) > 0 || env.DirtyElsewhere {
		b.WriteString(" (uncommitted changes in the work tree)")
	}
}

func orAuto(s string) string {
	if s == "" {
		return "auto"
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// cpuCells are a query's "PostgreSQL CPU | sidecar CPU | CPU ratio"
// cells: medians over the answered pairs, "–" where nothing was
// measured (or PostgreSQL's CPU is below the ticks' resolution).
func cpuCells(q *TPCHQuery) string {
	pg, sc, ratio := "–", "–", "–"
	if len(q.PostgresCPU) > 0 {
		pg = fmtDur(median(q.PostgresCPU))
	}
	if len(q.SidecarCPU) > 0 {
		sc = fmtDur(median(q.SidecarCPU))
		if m := median(q.PostgresCPU); len(q.Sidecar) > 0 && m > 0 {
			ratio = strconv.FormatFloat(float64(median(q.SidecarCPU))/float64(m), 'g', 3, 64) + "×"
		}
	}
	return pg + " | " + sc + " | " + ratio
}

// loadCell is a query's load average at its start → its end.
func loadCell(q *TPCHQuery) string {
	if q.LoadStart == "" && q.LoadEnd == "" {
		return "–"
	}
	return q.LoadStart + "→" + q.LoadEnd
}

// geomeanRatio is the geometric mean of sidecar / other over the
// queries both answered, with their count.
func geomeanRatio(qs []*TPCHQuery, other func(*TPCHQuery) []time.Duration) string {
	return geomean(qs, func(q *TPCHQuery) (float64, bool) {
		o := other(q)
		return float64(median(q.Sidecar)) / float64(median(o)), len(q.Sidecar) > 0 && len(o) > 0 && median(o) > 0
	})
}

// geomean is the geometric mean of ratio over the queries it is defined
// for, with their count.
func geomean(qs []*TPCHQuery, ratio func(*TPCHQuery) (float64, bool)) string {
	sum, n := 0.0, 0
	for _, q := range qs {
		r, ok := ratio(q)
		if !ok {
			continue
		}
		sum += math.Log(r)
		n++
	}
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3g× (%d queries)", math.Exp(sum/float64(n)), n)
}
