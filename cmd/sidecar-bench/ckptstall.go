package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/bench"
)

// newBenchCkptStallCmd is `sidecar-bench ckptstall`: how long the
// in-memory HEAD's writer stalls while a checkpoint takes its cut.
func newBenchCkptStallCmd(g *globals) *cobra.Command {
	var o bench.CkptStallOptions
	cmd := &cobra.Command{
		Use:   "ckptstall",
		Short: "Checkpoint cut stall: the longest gap between applied batches while a checkpoint cut is taken, under a steady write load",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Rows < 1 || o.Interval <= 0 || o.Duration <= 0 || o.WriteEvery <= 0 {
				return usageError(fmt.Errorf("bench ckptstall: --rows, --interval, --duration and --write-every must be positive"), "")
			}
			o.Logf = func(f string, a ...any) { fmt.Fprintf(g.stderr, f+"\n", a...) }
			rep, err := bench.RunCkptStall(cmd.Context(), o)
			if err != nil {
				return usageError(fmt.Errorf("bench ckptstall: %w", err), "")
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "rows=%d batches=%d median_gap=%s max_gap_outside=%s load_start=%q load_end=%q\n",
				rep.Rows, rep.Batches, rep.MedianGap, rep.MaxOutside, rep.LoadStart, rep.LoadEnd)
			for _, s := range rep.Early {
				fmt.Fprintf(w, "checkpoint_before_load rows=%d cut=%s encode=%s took=%s index_copied=%d\n", rep.Rows, s.Cut, s.Encode, s.Took, s.IndexCopied)
			}
			for _, s := range rep.Samples {
				fmt.Fprintf(w, "checkpoint rows=%d cut=%s encode=%s took=%s gap_during_cut=%s heap_before=%d heap_peak=%d rss_before=%d rss_peak=%d index_copied=%d\n",
					rep.Rows, s.Cut, s.Encode, s.Took, s.Gap, s.HeapBefore, s.HeapPeak, s.RSSBefore, s.RSSPeak, s.IndexCopied)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&o.Rows, "rows", 1_000_000, "table rows")
	fl.DurationVar(&o.Interval, "interval", 20*time.Second, "heap.checkpoint_interval")
	fl.DurationVar(&o.Duration, "duration", 90*time.Second, "write load after the copy")
	fl.DurationVar(&o.WriteEvery, "write-every", 10*time.Millisecond, "one single-row UPDATE commit per this")
	fl.StringVar(&o.MemoryLimit, "memory-limit", "", "the sidecar's memory.limit")
	fl.StringVar(&o.Dir, "dir", "", "scratch directory (default the system temp dir)")
	return cmd
}
