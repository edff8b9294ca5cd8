package bench

import (
	"context"
	"fmt"
	"io"
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
}

// TPCHQuery is one query's cell.
type TPCHQuery struct {
	N        int
	Postgres []time.Duration
	Sidecar  []time.Duration // answered runs only
	Outcome  sqldiff.Outcome // the last run's (identical, refused, …)
	Rows     int
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
}

// RunTPCH runs the benchmark.
func RunTPCH(ctx context.Context, o TPCHOptions) (*TPCHReport, error) {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	rep := &TPCHReport{Env: CollectEnv(ctx), Started: time.Now().UTC(), SF: o.SF, Reps: o.Reps, FoldDates: o.FoldDates, Rows: map[string]int64{}}
	scratch, pg, url, cleanup, err := startScratch(ctx, o.Dir, "sidecar-bench-tpch-", "tpch", o.Logf)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	rep.PGVersion = pg.ServerVersionString()
	start := time.Now()
	if err := loadTPCH(ctx, url, o, rep); err != nil {
		return nil, err
	}
	rep.Load = time.Since(start)
	o.Logf("loaded SF %g in %s: %v", o.SF, rep.Load.Round(time.Millisecond), rep.Rows)
	start = time.Now()
	tables := make([]string, len(tpch.Tables))
	for i, t := range tpch.Tables {
		tables[i] = "public." + t
	}
	sc, err := sqldiff.Follow(ctx, sqldiff.FollowOptions{PGURL: url, Tables: tables, Dir: scratch, StatementTimeout: o.Timeout})
	if err != nil {
		return nil, fmt.Errorf("follow: %w", err)
	}
	defer sc.Stop()
	rep.Follow = time.Since(start)
	o.Logf("sidecar serving after %s", rep.Follow.Round(time.Millisecond))
	pgs := &sqldiff.Session{URL: url, Init: []string{fmt.Sprintf("SET statement_timeout = %d", o.Timeout.Milliseconds())}}
	scs := &sqldiff.Session{URL: sc.SQLURL}
	defer pgs.Close()
	defer scs.Close()
	for i, q := range tpch.Queries {
		if o.FoldDates {
			q = tpch.FoldDates(q)
		}
		cell := &TPCHQuery{N: i + 1}
		rep.Queries = append(rep.Queries, cell)
		st := sqldiff.NewStatement(q)
		for r := range o.Reps {
			if cell.Outcome.Class == sqldiff.Refused {
				// A refusal does not change with repetition: PostgreSQL's
				// time is still measured Reps times.
				cell.Postgres = append(cell.Postgres, pgs.Time(ctx, q, o.Timeout))
				continue
			}
			out, pgTook, scTook := sqldiff.Compare(ctx, pgs, scs, st, o.Timeout, (r+i)%2 == 1)
			cell.Postgres = append(cell.Postgres, pgTook)
			cell.Outcome = out
			if out.Class == sqldiff.Identical || out.Class == sqldiff.OrderOnly || out.Class.Wrong() {
				cell.Sidecar = append(cell.Sidecar, scTook)
			}
		}
		o.Logf("Q%d: PostgreSQL %s, sidecar %s (%s %s)", cell.N, fmtDur(median(cell.Postgres)), fmtDur(median(cell.Sidecar)), out(cell.Outcome), cell.Outcome.Code)
	}
	rep.Took = time.Since(rep.Started)
	return rep, nil
}

func out(o sqldiff.Outcome) string { return string(o.Class) }

// loadTPCH creates the schema and copies every table in, generated on
// the fly, then analyzes.
func loadTPCH(ctx context.Context, url string, o TPCHOptions, rep *TPCHReport) error {
	c, err := pgconn.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx, tpch.Schema).ReadAll(); err != nil {
		return fmt.Errorf("create the TPC-H tables: %w", err)
	}
	for _, t := range tpch.Tables {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(tpch.Write(pw, t, o.SF, o.Seed)) }()
		tag, err := c.CopyFrom(ctx, pr, "COPY "+t+" FROM STDIN")
		pr.CloseWithError(err) // stops the writer if COPY failed first
		if err != nil {
			return fmt.Errorf("load %s: %w", t, err)
		}
		rep.Rows[t] = tag.RowsAffected()
	}
	if _, err := c.Exec(ctx, "ANALYZE").ReadAll(); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
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
	p(" loaded (generate, COPY, ANALYZE) in %s; the sidecar's copy until it served took %s. Standard primary keys only, no secondary indexes.\n\n", fmtDur(rep.Load), fmtDur(rep.Follow))
	if rep.FoldDates {
		p("The queries' date arithmetic (`date '…' ± interval '…'`) is folded into date literals (`--fold-dates`).\n\n")
	} else {
		p("The query texts are the specification's, date arithmetic included.\n\n")
	}
	p("Each query %d times per side, alternating which side runs first; median (min–max). Answer: the sidecar's rows compared with PostgreSQL's in text format (in order under ORDER BY). Ratio = sidecar / PostgreSQL. DuckDB (the anchor) is not in this run: `bench/duckdb` loads one table per process so far.\n\n", rep.Reps)
	p("| query | PostgreSQL | sidecar | ratio | answer |\n|---|---:|---:|---:|---|\n")
	answered, equal := 0, 0
	for _, q := range rep.Queries {
		pgm := median(q.Postgres)
		sc, ratio := "–", "–"
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
		p("| Q%d | %s (%s–%s) | %s | %s | %s |\n", q.N, fmtDur(pgm), fmtDur(minDur(q.Postgres)), fmtDur(maxDur(q.Postgres)), sc, ratio, ans)
	}
	p("\n**%d of %d answered, %d identical to PostgreSQL.**\n", answered, len(rep.Queries), equal)
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
