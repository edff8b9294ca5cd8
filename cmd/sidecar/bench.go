package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newBenchCmd is `sidecar bench`, which moved: the benchmark harness and
// the PostgreSQL clusters it starts live in the separate sidecar-bench
// binary (cmd/sidecar-bench), so the product binary carries neither.
func newBenchCmd(_ *globals) *cobra.Command {
	return &cobra.Command{
		Use:                "bench",
		Short:              "Moved: the benchmarks are the sidecar-bench binary (go run ./cmd/sidecar-bench)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			hint := "go run ./cmd/sidecar-bench --help"
			if len(args) > 0 {
				hint = "go run ./cmd/sidecar-bench " + args[0]
			}
			return usageError(errors.New("bench: the benchmark harness moved out of the product binary into sidecar-bench (cmd/sidecar-bench)"), hint)
		},
	}
}
