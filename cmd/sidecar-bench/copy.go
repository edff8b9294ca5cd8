package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/bench"
)

// newBenchCopyCmd is `sidecar-bench copy`: the sidecar's initial copy
// against PostgreSQL's own `\copy … TO /dev/null`, per table size.
func newBenchCopyCmd(g *globals) *cobra.Command {
	var (
		sizes                       []int
		reps                        int
		dir, out, profileDir, limit string
	)
	cmd := &cobra.Command{
		Use:   "copy",
		Short: "Initial copy: psql \\copy t TO /dev/null (text, binary) vs the sidecar's copy to table ready and to HEAD ready",
		Long: `bench copy loads a table into a throwaway PostgreSQL and, per size and
repetition, alternates psql's \copy t TO '/dev/null' (text and binary) with
an in-process daemon's initial copy on an empty data directory, timed to
the table ready and to the in-memory HEAD holding every row. Writes
bench/results/copy-<date>.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(sizes) == 0 || reps <= 0 {
				return usageError(fmt.Errorf("bench copy: --rows and --reps must be positive"), "")
			}
			for _, n := range sizes {
				if n < 1 {
					return usageError(fmt.Errorf("bench copy: --rows %d is not positive", n), "")
				}
			}
			if out == "" {
				out = filepath.Join("bench", "results", "copy-"+time.Now().UTC().Format("2006-01-02")+".md")
			}
			rep, err := bench.RunCopy(cmd.Context(), bench.CopyOptions{Sizes: sizes, Reps: reps, Dir: dir, MemoryLimit: limit, ProfileDir: profileDir,
				Logf: func(f string, a ...any) { fmt.Fprintf(g.stderr, f+"\n", a...) }})
			if err != nil {
				return usageError(fmt.Errorf("bench copy: %w", err), "")
			}
			ns := make([]string, len(sizes))
			for i, n := range sizes {
				ns[i] = fmt.Sprint(n)
			}
			command := fmt.Sprintf("sidecar-bench copy --rows %s --reps %d", strings.Join(ns, ","), reps)
			if limit != "" {
				command += " --memory-limit " + limit
			}
			return writeReport(g, out, func(w io.Writer) error { return bench.WriteCopyMarkdown(w, rep, command) })
		},
	}
	fl := cmd.Flags()
	fl.IntSliceVar(&sizes, "rows", []int{1_000_000, 10_000_000}, "table sizes, comma separated (the table grows from one to the next)")
	fl.IntVar(&reps, "reps", 3, "repetitions per size")
	fl.StringVar(&dir, "dir", "", "directory for the mirror's data (default the system temp dir)")
	fl.StringVar(&out, "out", "", "report path (default bench/results/copy-<date>.md)")
	fl.StringVar(&limit, "memory-limit", "", "the sidecar's memory.limit (default its own)")
	fl.StringVar(&profileDir, "profile-dir", "", "write a CPU and an allocation profile of each sidecar copy here")
	return cmd
}
