package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/demo"
)

func newDemoCmd(g *globals) *cobra.Command {
	var rows int
	var verbose, keep bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "A guided tour on a throwaway local PostgreSQL: copy, stream, versions",
		Long: `demo starts a throwaway PostgreSQL (the server binaries must be installed:
apt-get install postgresql), creates and fills a sample table, runs the sidecar
against it, makes a few changes, and prints what the sidecar recorded. It stops
and removes everything when it ends, also on Ctrl-C. No config file is needed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := demo.Options{Out: g.stdout, Rows: rows, KeepDir: keep,
				CLI: func(ctx context.Context, stdout, stderr io.Writer, args ...string) int {
					return run(ctx, args, stdout, stderr)
				}}
			if verbose {
				opts.Log = g.stderr
			}
			if err := demo.Run(cmd.Context(), opts); err != nil {
				return usageError(err, "")
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&rows, "rows", 10000, "rows in the sample table")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "show the daemon's log on stderr")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the data directory")
	return cmd
}
