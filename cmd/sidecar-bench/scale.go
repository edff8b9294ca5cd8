package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/bench"
)

// newBenchScaleCmd is `sidecar-bench scale`: one large table followed with
// memory.limit set, PostgreSQL with shared_buffers 4GB in the same run
// (issue 24 item 3).
func newBenchScaleCmd(g *globals) *cobra.Command {
	var (
		o         bench.ScaleOptions
		out, cpu  string
		growUntil string
	)
	cmd := &cobra.Command{
		Use:   "scale",
		Short: "One large table followed with memory.limit set: copy vs \\copy, RSS vs the limit, point/range/count+sum/group-having warm and cold, seed-003 apply, compaction",
		Long: `bench scale loads t(id bigint PRIMARY KEY, k, v, score, grp) with --rows rows
into a throwaway PostgreSQL (shared_buffers --shared-buffers), times psql's
\copy t TO /dev/null, then follows it with an in-process daemon
(memory.limit --memory-limit) to the HEAD holding every row, sampling the
process's RSS every second (logged; the curve is in the report). Then, on
both SQL ports, alternating which goes first: point gets, 10k-row key
ranges, count+sum and a group/having aggregate, warm (--reps) and cold
(after restarting both with their files dropped from the page cache); then
the seed-003 UPDATE 50 % / DELETE 20 % and the compactions vs VACUUM and
VACUUM FULL (--apply).

--cgroup DIR: a memory cgroup (v1 or v2, its limit already set) the process
moves into once PostgreSQL has started, so an overrun kills the benchmark
and its daemon only. The report is rewritten to --out after every phase, so
an OOM kill leaves the phases measured before it (and the log the RSS curve).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Rows < 20_000 || o.Reps <= 0 || o.Gets <= 0 || o.Ranges <= 0 {
				return usageError(fmt.Errorf("bench scale: --rows (at least 20000), --reps, --gets and --ranges must be positive"), "sidecar-bench scale --rows 10000000")
			}
			if growUntil != "" {
				hm, err := time.Parse("15:04", growUntil)
				if err != nil {
					return usageError(fmt.Errorf("--grow-until %q: want HH:MM (UTC)", growUntil), "sidecar-bench scale --grow --grow-until 11:10")
				}
				now := time.Now().UTC()
				o.GrowUntil = time.Date(now.Year(), now.Month(), now.Day(), hm.Hour(), hm.Minute(), 0, 0, time.UTC)
			}
			if out == "" {
				out = filepath.Join("bench", "results", "scale-"+time.Now().UTC().Format("2006-01-02")+".md")
			}
			command := fmt.Sprintf("sidecar-bench scale --rows %d --memory-limit %s --shared-buffers %s --reps %d --gets %d --ranges %d --cold=%v --apply=%v --join=%v",
				o.Rows, o.MemoryLimit, o.SharedBuffers, o.Reps, o.Gets, o.Ranges, o.Cold, o.Apply, o.Join)
			if o.Cgroup != "" {
				command += " --cgroup " + o.Cgroup
			}
			if o.MaxWalSize != "" {
				command += " --max-wal-size " + o.MaxWalSize
			}
			if o.CheckpointInterval > 0 {
				command += " --checkpoint-interval " + o.CheckpointInterval.String()
			}
			if o.GCInterval > 0 {
				command += " --gc-interval " + o.GCInterval.String()
			}
			if o.Grow {
				command += " --grow"
				if growUntil != "" {
					command += " --grow-until " + growUntil
				}
			}
			o.Logf = func(f string, a ...any) {
				fmt.Fprintf(g.stderr, time.Now().UTC().Format("15:04:05 ")+f+"\n", a...)
			}
			o.Render = func(rep *bench.ScaleReport) {
				var b bytes.Buffer
				if err := bench.WriteScaleMarkdown(&b, rep, command); err != nil {
					o.Logf("render: %v", err)
					return
				}
				if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
					o.Logf("render: %v", err)
				}
			}
			stop, err := startCPUProfile(cpu)
			if err != nil {
				return usageError(err, "")
			}
			_, err = bench.RunScale(cmd.Context(), o)
			stop()
			if err != nil {
				return usageError(fmt.Errorf("bench scale: %w", err), "")
			}
			fmt.Fprintf(g.stdout, "wrote %s\n", out)
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Rows, "rows", 10_000_000, "rows in the table")
	f.StringVar(&o.MemoryLimit, "memory-limit", "4GiB", "the sidecar's memory.limit")
	f.StringVar(&o.SharedBuffers, "shared-buffers", "4GB", "PostgreSQL's shared_buffers")
	f.StringVar(&o.MaxWalSize, "max-wal-size", "", "PostgreSQL's max_wal_size (default 16GB; smaller bounds the WAL on disk at 100M rows)")
	f.IntVar(&o.Reps, "reps", 5, "warm repetitions of every read cell")
	f.IntVar(&o.Gets, "gets", 1000, "point gets per repetition and side")
	f.IntVar(&o.Ranges, "ranges", 10, "10k-row ranges per repetition and side")
	f.BoolVar(&o.Cold, "cold", true, "measure the cold level (restart both, files dropped from the page cache)")
	f.BoolVar(&o.Apply, "apply", true, "the seed-003 UPDATE 50 % / DELETE 20 % and the compactions (long at 100M rows)")
	f.BoolVar(&o.Join, "join", true, "the join cell: a hash join over every row (long at 50M+ rows)")
	f.StringVar(&o.Cgroup, "cgroup", "", "memory cgroup directory to move into once PostgreSQL runs (the hard cap)")
	f.BoolVar(&o.Grow, "grow", false, "follow t from empty while 1M-row INSERT transactions grow it to --rows (instead of loading it and timing the initial copy)")
	f.StringVar(&growUntil, "grow-until", "", "with --grow: stop growing at this UTC time (HH:MM), keeping the rows reached")
	f.StringVar(&o.Dir, "dir", "", "scratch directory for the sidecar's data (default the system temp dir)")
	f.StringVar(&o.ProfileDir, "profile-dir", "", "write heap profiles (after the copy, at every 512 MiB RSS step) here")
	f.DurationVar(&o.CheckpointInterval, "checkpoint-interval", 0, "the daemon's heap.checkpoint_interval (default its own, 5m)")
	f.DurationVar(&o.GCInterval, "gc-interval", 0, "the daemon's history.gc_interval (default its own, 10m)")
	f.StringVar(&o.DaemonLog, "daemon-log", "", "keep the daemon's log here (default sidecar-bench-scale-<start>.daemon.log in --dir or the temp dir)")
	f.StringVar(&out, "out", "", "report path (default bench/results/scale-<date>.md)")
	f.StringVar(&cpu, "cpuprofile", "", "write a CPU profile of the whole run to FILE")
	return cmd
}
