package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/history"
)

func newBranchCmd(g *globals) *cobra.Command {
	var del bool
	var format string
	cmd := &cobra.Command{
		Use:   "branch [NAME [REF]]",
		Short: "Create, list or delete branches: named roots replication never touches",
		Long: `branch NAME [REF] keeps every table as of REF (default HEAD) under NAME.
Replication never changes a branch; merge --branch writes results into new
ones. branch with no arguments lists them; branch --delete NAME removes one.
A branch is a ref: diff, get, scan and merge accept its name.

Exit status: 0; 2 on error.`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageError(fmt.Errorf("--format %q: want text or json", format), "")
			}
			if del && len(args) != 1 {
				return usageError(fmt.Errorf("--delete takes exactly one branch name"), "sidecar branch --delete NAME")
			}
			return withHistory(cmd, g, func(api history.API) error {
				ctx := cmd.Context()
				switch {
				case del:
					if err := api.DeleteBranch(ctx, args[0]); err != nil {
						return historyError(err)
					}
					fmt.Fprintf(g.stdout, "deleted branch %s\n", args[0])
				case len(args) == 0:
					bs, err := api.Branches(ctx)
					if err != nil {
						return historyError(err)
					}
					if format == "json" {
						return json.NewEncoder(g.stdout).Encode(bs)
					}
					tw := tabwriter.NewWriter(g.stdout, 1, 4, 2, ' ', 0)
					for _, b := range bs {
						fmt.Fprintf(tw, "%s\tfrom %s\t%d tables\t%s\t\n", b.Name, b.From, len(b.Roots), b.Created.Format("2006-01-02T15:04:05Z07:00"))
					}
					return tw.Flush()
				default:
					ref := "HEAD"
					if len(args) == 2 {
						ref = args[1]
					}
					b, err := api.CreateBranch(ctx, args[0], ref)
					if err != nil {
						return historyError(err)
					}
					if format == "json" {
						return json.NewEncoder(g.stdout).Encode(b)
					}
					fmt.Fprintf(g.stdout, "branch %s from %s (%d tables)\n", b.Name, b.From, len(b.Roots))
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&del, "delete", false, "delete the branch NAME")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}
