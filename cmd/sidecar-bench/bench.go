package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/bench"
)

// benchSubjects are the reports `sidecar-bench` can reproduce so far.
var benchSubjects = []string{"prolly", "replication", "verify", "reads", "tpch", "apply", "copy", "scale"}

// newBenchCmd is `sidecar-bench <subject>`: reproduce a benchmark report of
// bench/results/ on this machine.
func newBenchCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sidecar-bench <subject>",
		Short: "Reproduce a benchmark report in bench/results/ on this machine",
		Long: `bench runs one benchmark matrix and writes its report, with the reference
(seed) figures beside ours, as markdown plus the raw samples as JSON.

Subjects: ` + strings.Join(benchSubjects, ", ") + `.

Exit status: 0 the report was written; 2 bad flags, an unknown subject, or a
cell that failed its check.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, args []string) error {
			// Reached only when no subcommand matched.
			if len(args) == 0 {
				return usageError(errors.New("bench: name a subject"), "sidecar-bench prolly")
			}
			return usageError(fmt.Errorf("bench: unknown subject %q (known: %s)", args[0], strings.Join(benchSubjects, ", ")), "sidecar-bench prolly --help")
		},
	}
	cmd.AddCommand(newBenchProllyCmd(g))
	cmd.AddCommand(newBenchReplicationCmd(g))
	cmd.AddCommand(newBenchVerifyCmd(g))
	cmd.AddCommand(newBenchReadsCmd(g))
	cmd.AddCommand(newBenchApplyCmd(g))
	cmd.AddCommand(newBenchTPCHCmd(g))
	cmd.AddCommand(newBenchCopyCmd(g))
	cmd.AddCommand(newBenchScaleCmd(g))
	cmd.AddCommand(newBenchCkptStallCmd(g))
	return cmd
}

func newBenchProllyCmd(g *globals) *cobra.Command {
	var (
		records, dir, out, cpuprofile string
		steps                         []string
		reps, batch                   int
		seed                          int64
		keep                          bool
	)
	cmd := &cobra.Command{
		Use:   "prolly",
		Short: "The Prolly-tree matrix of issue #3 at 1M and 10M records",
		Long: `prolly builds a Prolly tree of N rows (24-byte keys, 27-byte values) in a fresh
Badger store per size and times: initial build, full scan, append / random /
clustered batches and single puts, cold and warm point gets, ordered and
random GetMany, an ordered range scan, diffs and three-way merges; it records
node count, height, serialized bytes, bytes on disk and peak RSS. Build and
full scan run once, every other cell --reps times (median, min, max). Every
cell checks its answer. The report goes to --out (default
bench/results/prolly-<date>.md), the raw samples beside it as .json.

10M records take several minutes and a few GiB in --dir.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sizes, err := bench.ParseRecords(records)
			if err != nil {
				return usageError(fmt.Errorf("--records: %w", err), "sidecar-bench prolly --records 1000000,10000000")
			}
			if reps < 1 {
				return usageError(fmt.Errorf("--reps %d: want at least 1", reps), "sidecar-bench prolly --reps 3")
			}
			if batch < 1 {
				return usageError(fmt.Errorf("--batch %d: want at least 1", batch), "sidecar-bench prolly --batch 10000")
			}
			if dir != "" {
				if st, err := os.Stat(dir); err != nil || !st.IsDir() {
					return usageError(fmt.Errorf("--dir %q: not an existing directory", dir), "sidecar-bench prolly --dir /var/tmp")
				}
			}
			o := bench.ProllyOptions{Records: sizes, Dir: dir, Keep: keep, Reps: reps, Seed: seed, Batch: batch, Steps: steps, Out: g.stderr}
			if err := o.Validate(); err != nil {
				return usageError(err, "sidecar-bench prolly --records 1000000,10000000")
			}
			stop, err := startCPUProfile(cpuprofile)
			if err != nil {
				return usageError(err, "")
			}
			defer stop()
			rep, err := bench.RunProlly(cmd.Context(), o)
			if err != nil {
				return usageError(err, "")
			}
			if out == "" {
				out = filepath.Join("bench", "results", bench.ProllyResultName(rep.Started))
			}
			if err := bench.WriteProllyFiles(out, rep); err != nil {
				return usageError(err, "")
			}
			fmt.Fprintf(g.stdout, "wrote %s and %s\n", out, bench.JSONPath(out))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&records, "records", "1000000,10000000", "comma-separated base sizes (k and M suffixes allowed)")
	f.IntVar(&reps, "reps", 3, "repetitions of every cell but build and full scan")
	f.StringVar(&dir, "dir", "", "directory for the temporary stores (default: the system temp dir)")
	f.StringVar(&out, "out", "", "markdown report file (default bench/results/prolly-<date>.md)")
	f.Int64Var(&seed, "seed", 1, "seed of every sampled key and value")
	f.IntVar(&batch, "batch", 10_000, "keys per batch, read, scan and diff (the seed's 10,000; other values make the seed columns incomparable)")
	f.BoolVar(&keep, "keep", false, "keep the stores in --dir after the run")
	f.StringVar(&cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run to FILE")
	f.StringSliceVar(&steps, "steps", nil, "run only these steps after the build (for A/B runs; the report then lacks the others): "+strings.Join(bench.ProllySteps, ","))
	return cmd
}

func newBenchReplicationCmd(g *globals) *cobra.Command {
	var (
		rows, dir, out, cpuprofile, profDir, render string
		reps, clients, txns, upd                    int
		sustain                                     time.Duration
		keep                                        bool
	)
	cmd := &cobra.Command{
		Use:   "replication",
		Short: "The replication benchmark of issue #4: the sidecar against PostgreSQL's own logical replication",
		Long: `replication starts a publisher and a subscriber PostgreSQL cluster, loads
t(id bigint PK, k bytea, v text, score int) with N rows, runs the sidecar in
this process, and times, each consumer alone on the same data: the initial
copy (sidecar, CREATE SUBSCRIPTION, COPY TO STDOUT alone); one big UPDATE
(sidecar and subscriber live, pg_recvlogical protocol 2 over the same WAL,
both after downtime); catch-up of single-row transactions after downtime;
lag and bytes written per changed row under pgbench at full rate. After every
phase the mirror and the subscriber are compared row by row with the
publisher. The report goes to --out (default
bench/results/replication-<date>.md), the raw samples beside it as .json.

Exit status: 0 the report was written and every check passed; 2 bad flags,
a failed run, or a replica that differed (the report is still written).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sizes, err := bench.ParseRecords(rows)
			if err != nil {
				return usageError(fmt.Errorf("--rows: %w", err), "sidecar-bench replication --rows 1000000,10000000")
			}
			if reps < 1 {
				return usageError(fmt.Errorf("--reps %d: want at least 1", reps), "sidecar-bench replication --reps 3")
			}
			if render != "" {
				rep, err := bench.ReadReplicationJSON(render)
				if err != nil {
					return usageError(err, "")
				}
				if out == "" {
					out = strings.TrimSuffix(render, filepath.Ext(render)) + ".md"
				}
				if err := bench.WriteReplicationFiles(out, rep); err != nil {
					return usageError(err, "")
				}
				fmt.Fprintf(g.stdout, "wrote %s\n", out)
				return nil
			}
			if cpuprofile != "" && profDir != "" {
				return usageError(errors.New("--cpuprofile and --profile-dir: choose one (one CPU profile runs at a time)"), "sidecar-bench replication --profile-dir /tmp/prof")
			}
			o := bench.ReplicationOptions{Rows: sizes, Reps: reps, Clients: clients, Txns: txns, UpdateRows: upd, Sustain: sustain, Dir: dir, Keep: keep, ProfileDir: profDir, Out: g.stderr}
			if err := o.Validate(); err != nil {
				return usageError(err, "sidecar-bench replication --rows 1000000")
			}
			stop, err := startCPUProfile(cpuprofile)
			if err != nil {
				return usageError(err, "")
			}
			defer stop()
			rep, runErr := bench.RunReplication(cmd.Context(), o)
			if rep == nil {
				return usageError(runErr, "")
			}
			if out == "" {
				out = filepath.Join("bench", "results", bench.ReplicationResultName(rep.Started))
			}
			if err := bench.WriteReplicationFiles(out, rep); err != nil {
				return usageError(err, "")
			}
			fmt.Fprintf(g.stdout, "wrote %s and %s\n", out, bench.JSONPath(out))
			if runErr != nil {
				return usageError(runErr, "")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&rows, "rows", "1000000", "comma-separated table sizes (k and M suffixes allowed), e.g. 1000000,10000000")
	f.IntVar(&reps, "reps", 3, "repetitions of every cell but the sustained run")
	f.IntVar(&upd, "update-rows", 500_000, "rows of the one big UPDATE (at most half the table)")
	f.IntVar(&txns, "txns", 10_000, "single-row transactions of the catch-up cell (a multiple of --clients)")
	f.IntVar(&clients, "clients", 8, "pgbench sessions of the catch-up and sustained cells")
	f.DurationVar(&sustain, "sustain", time.Minute, "length of the sustained pgbench run")
	f.StringVar(&dir, "dir", "", "directory for the sidecar's data, logs and scripts (default: a temporary one)")
	f.StringVar(&out, "out", "", "markdown report file (default bench/results/replication-<date>.md)")
	f.BoolVar(&keep, "keep", false, "keep --dir's contents (sidecar data and logs) after the run")
	f.StringVar(&cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run (the sidecar runs in this process) to FILE")
	f.StringVar(&profDir, "profile-dir", "", "write a CPU profile of each timed sidecar interval into DIR")
	f.StringVar(&render, "render", "", "do not run: render the markdown again from a raw .json report (to --out, default beside it)")
	return cmd
}

func newBenchVerifyCmd(g *globals) *cobra.Command {
	var (
		rows, reps int
		dir, out   string
		diffs      string
	)
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "sidecar verify of a large table vs PostgreSQL's own bucketed-hash scan and a data-diff-style md5 pass",
		Long: `bench verify loads a table into a throwaway PostgreSQL, mirrors it, and
measures sidecar verify against PostgreSQL's level-0 bucketed-hash scan and a
data-diff-style md5 comparison, then with 1, 100 and 1,000 differing rows.
Writes bench/results/verify-<date>.md and its JSON.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if rows <= 0 || reps <= 0 {
				return usageError(fmt.Errorf("bench verify: --rows and --reps must be positive"), "")
			}
			var ds []int
			for _, f := range strings.Split(diffs, ",") {
				var n int
				if _, err := fmt.Sscan(strings.TrimSpace(f), &n); err != nil || n <= 0 {
					return usageError(fmt.Errorf("bench verify: --diffs %q: want positive integers separated by commas", diffs), "")
				}
				ds = append(ds, n)
			}
			if out == "" {
				out = filepath.Join("bench", "results", "verify-"+time.Now().UTC().Format("2006-01-02")+".md")
			}
			rep, err := bench.RunVerify(cmd.Context(), bench.VerifyOptions{Rows: rows, Reps: reps, Diffs: ds, Dir: dir,
				Logf: func(f string, a ...any) { fmt.Fprintf(g.stderr, f+"\n", a...) }})
			if err != nil {
				return usageError(fmt.Errorf("bench verify: %w", err), "")
			}
			command := "sidecar-bench verify --rows " + fmt.Sprint(rows) + " --reps " + fmt.Sprint(reps)
			if err := bench.WriteVerifyFiles(out, rep, command, ""); err != nil {
				return usageError(err, "")
			}
			fmt.Fprintf(g.stdout, "wrote %s\n", out)
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&rows, "rows", 10_000_000, "rows in the table")
	f.IntVar(&reps, "reps", 3, "repetitions of each cell")
	f.StringVar(&diffs, "diffs", "1,100,1000", "numbers of differing rows to measure")
	f.StringVar(&dir, "dir", "", "directory for the mirror's data (default the system temp dir)")
	f.StringVar(&out, "out", "", "report path (default bench/results/verify-<date>.md)")
	return cmd
}

func newBenchReadsCmd(g *globals) *cobra.Command {
	var (
		rows, readRows, reps, gets, ranges int
		dir, out                           string
	)
	cmd := &cobra.Command{
		Use:   "reads",
		Short: "The in-memory HEAD vs PostgreSQL: seed-003 apply, VACUUM / VACUUM FULL, point gets and 10k ranges, footprint",
		Long: `bench reads loads a table into a throwaway PostgreSQL, follows it with an
in-process daemon, and measures in the same run on the same data: the
seed-003 workload (UPDATE of the first half, DELETE of the first fifth) as
PostgreSQL's statement vs the sidecar's commit → applied in tree, heap and
index; VACUUM vs the heap's incremental compaction and VACUUM FULL vs full
compaction; point gets and 10k-row ranges through the HTTP API vs
PostgreSQL prepared statements (alternating which goes first) and in
process on the model; the HEAD checkpoint and data directory against
pg_total_relation_size; index bytes per key; peak RSS. Writes
bench/results/reads-<date>.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if rows < 20_000 || reps <= 0 || gets <= 0 || ranges <= 0 {
				return usageError(fmt.Errorf("bench reads: --rows (at least 20000), --reps, --gets and --ranges must be positive"), "")
			}
			if out == "" {
				out = filepath.Join("bench", "results", "reads-"+time.Now().UTC().Format("2006-01-02")+".md")
			}
			rep, err := bench.RunReads(cmd.Context(), bench.ReadsOptions{Rows: rows, ReadRows: readRows, Reps: reps, Gets: gets, Ranges: ranges, Dir: dir,
				Logf: func(f string, a ...any) { fmt.Fprintf(g.stderr, f+"\n", a...) }})
			if err != nil {
				return usageError(fmt.Errorf("bench reads: %w", err), "")
			}
			command := fmt.Sprintf("sidecar-bench reads --rows %d --read-rows %d --reps %d --gets %d --ranges %d", rows, readRows, reps, gets, ranges)
			return writeReport(g, out, func(w io.Writer) error { return bench.WriteReadsMarkdown(w, rep, command) })
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&rows, "rows", 1_000_000, "rows in the table")
	fl.IntVar(&readRows, "read-rows", 0, "rows for the reads and the footprint (default --rows; more are inserted after the seed-003 cells)")
	fl.IntVar(&reps, "reps", 5, "repetitions of each cell")
	fl.IntVar(&gets, "gets", 2000, "point gets per repetition and side")
	fl.IntVar(&ranges, "ranges", 20, "10k-row ranges per repetition and side")
	fl.StringVar(&dir, "dir", "", "directory for the mirror's data (default the system temp dir)")
	fl.StringVar(&out, "out", "", "report path (default bench/results/reads-<date>.md)")
	return cmd
}

// startCPUProfile writes a CPU profile to path ("" : none) until stop.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// newBenchTPCHCmd is `sidecar-bench tpch`: TPC-H's 22 queries on
// PostgreSQL and on the SQL port of a sidecar following it.
func newBenchTPCHCmd(g *globals) *cobra.Command {
	var (
		sf         float64
		foldDates  bool
		reps       int
		timeout    time.Duration
		seed       uint64
		dir, out   string
		cpuprofile string
		duck       string
		duckMem    string
		memLimit   string
		workMem    string
		queries    []int
		ownSession bool
	)
	cmd := &cobra.Command{
		Use:   "tpch",
		Short: "TPC-H's 22 queries on PostgreSQL and on the sidecar's SQL port, answers compared (issue 22 item 7)",
		Long: `tpch generates the eight TPC-H tables at --sf (bench/tpch; fractional scale
factors allowed), loads them into a throwaway PostgreSQL, follows them with a
sidecar run in process, then runs the 22 queries with their default parameters
--reps times on each side, alternating which side runs first, and compares
each answer with PostgreSQL's. It writes bench/results/tpch-<date>.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sf <= 0 || reps < 1 || timeout <= 0 {
				return usageError(fmt.Errorf("bench tpch: --sf, --reps and --timeout must be positive"), "sidecar-bench tpch --sf 0.05")
			}
			if ownSession {
				// bench/session.go: one scheduling share for the sidecar,
				// as each PostgreSQL backend has, not one shared with the
				// invoking shell's other jobs.
				ag, err := bench.OwnSession()
				if err != nil {
					fmt.Fprintf(g.stderr, "own session: %v (%s)\n", err, ag)
				} else {
					fmt.Fprintf(g.stderr, "own session: %s\n", ag)
				}
			}
			stop, err := startCPUProfile(cpuprofile)
			if err != nil {
				return err
			}
			rep, err := bench.RunTPCH(cmd.Context(), bench.TPCHOptions{SF: sf, Reps: reps, Timeout: timeout, Seed: seed, Dir: dir, FoldDates: foldDates,
				DuckDB: duck, DuckDBMemory: duckMem, MemoryLimit: memLimit, WorkMem: workMem, Queries: queries,
				Logf: func(f string, a ...any) { fmt.Fprintf(g.stderr, f+"\n", a...) }})
			stop()
			if err != nil {
				return usageError(fmt.Errorf("bench tpch: %w", err), "")
			}
			if out == "" {
				out = filepath.Join("bench", "results", bench.TPCHResultName(rep.Started))
			}
			command := fmt.Sprintf("sidecar-bench tpch --sf %g --reps %d --timeout %s", sf, reps, timeout)
			if foldDates {
				command += " --fold-dates"
			}
			if len(queries) > 0 {
				command += " --queries " + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(queries)), ","), "[]")
			}
			for _, f := range []struct{ name, v string }{{"duckdb", duck}, {"duckdb-memory", duckMem}, {"memory-limit", memLimit}, {"work-mem", workMem}} {
				if f.v != "" {
					command += fmt.Sprintf(" --%s %s", f.name, f.v)
				}
			}
			return writeReport(g, out, func(w io.Writer) error { return bench.WriteTPCHMarkdown(w, rep, command) })
		},
	}
	f := cmd.Flags()
	f.Float64Var(&sf, "sf", 0.05, "TPC-H scale factor (1 = 6M lineitem rows)")
	f.IntVar(&reps, "reps", 3, "runs of each query per side")
	f.DurationVar(&timeout, "timeout", 60*time.Second, "statement timeout per query and side")
	f.Uint64Var(&seed, "seed", 1, "data generator seed")
	f.BoolVar(&foldDates, "fold-dates", false, "fold the queries' date ± interval arithmetic into date literals")
	f.StringVar(&dir, "dir", "", "scratch directory (default: the system's temporary directory)")
	f.StringVar(&out, "out", "", "report file (default bench/results/tpch-<date>.md)")
	f.StringVar(&cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run to FILE")
	f.StringVar(&duck, "duckdb", "", "path of the DuckDB anchor program (go build in bench/duckdb): adds a DuckDB column")
	f.StringVar(&duckMem, "duckdb-memory", "", "DuckDB's memory_limit (e.g. 3GB; default DuckDB's own)")
	f.StringVar(&memLimit, "memory-limit", "", "the sidecar's memory.limit (e.g. 4GiB; default auto)")
	f.StringVar(&workMem, "work-mem", "", "the sidecar sessions' sidecar.work_mem (e.g. 1GB; default the executor's)")
	f.IntSliceVar(&queries, "queries", nil, "the query numbers to run, e.g. 2,18,21 (default all 22)")
	f.BoolVar(&ownSession, "own-session", true, "run in a session (scheduling autogroup) of its own, as each PostgreSQL backend does (bench/session.go)")
	return cmd
}

// writeReport creates the report file out, writes it with write and says
// so on stdout.
func writeReport(g *globals, out string, write func(io.Writer) error) error {
	f, err := os.Create(out)
	if err != nil {
		return usageError(err, "")
	}
	if err := write(f); err != nil {
		f.Close()
		return usageError(err, "")
	}
	if err := f.Close(); err != nil {
		return usageError(err, "")
	}
	fmt.Fprintf(g.stdout, "wrote %s\n", out)
	return nil
}

// newBenchApplyCmd is `sidecar-bench apply`: the seed-003 UPDATE and
// DELETE as PostgreSQL's statement, PostgreSQL's own logical decoding of
// the same transaction and the sidecar's commit → durable and → visible.
func newBenchApplyCmd(g *globals) *cobra.Command {
	var (
		rows, reps           int
		dir, out, profileDir string
	)
	cmd := &cobra.Command{
		Use:   "apply",
		Short: "Seed-003 UPDATE 50 % / DELETE 20 %: PostgreSQL's statement, pg_recvlogical's decoding, the sidecar's commit → durable and → visible",
		Long: `bench apply loads a table into a throwaway PostgreSQL, follows it with an
in-process daemon and, per repetition, runs the seed-003 UPDATE of half the
table and DELETE of a fifth (each one transaction with a marker row),
measuring PostgreSQL's statement, the sidecar's COMMIT → durable and
COMMIT → visible at HEAD, and pg_recvlogical's decoding of the same
transaction from a slot created just before it (pgoutput v2, streaming, to
/dev/null). Writes bench/results/apply-<date>.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if rows < 1000 || reps <= 0 {
				return usageError(fmt.Errorf("bench apply: --rows (at least 1000) and --reps must be positive"), "")
			}
			if out == "" {
				out = filepath.Join("bench", "results", "apply-"+time.Now().UTC().Format("2006-01-02")+".md")
			}
			rep, err := bench.RunApply(cmd.Context(), bench.ApplyOptions{Rows: rows, Reps: reps, Dir: dir, ProfileDir: profileDir,
				Logf: func(f string, a ...any) { fmt.Fprintf(g.stderr, f+"\n", a...) }})
			if err != nil {
				return usageError(fmt.Errorf("bench apply: %w", err), "")
			}
			command := fmt.Sprintf("sidecar-bench apply --rows %d --reps %d", rows, reps)
			return writeReport(g, out, func(w io.Writer) error { return bench.WriteApplyMarkdown(w, rep, command) })
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&rows, "rows", 1_000_000, "rows in the table")
	fl.IntVar(&reps, "reps", 5, "repetitions")
	fl.StringVar(&dir, "dir", "", "directory for the mirror's data (default the system temp dir)")
	fl.StringVar(&out, "out", "", "report path (default bench/results/apply-<date>.md)")
	fl.StringVar(&profileDir, "profile-dir", "", "write CPU and allocation profiles of each sidecar window here")
	return cmd
}
