package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/history"
)

func newTagCmd(g *globals) *cobra.Command {
	var del bool
	var format string
	cmd := &cobra.Command{
		Use:   "tag [NAME [REF]]",
		Short: "Create, list or delete tags: named versions retained forever",
		Long: `tag NAME [REF] names the version REF resolves to (default HEAD); retention
never collects a tagged version. tag with no arguments lists the tags;
tag --delete NAME removes one. Tags and branches share one namespace.

Exit status: 0; 2 on error (bad or unknown ref, name taken).`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageError(fmt.Errorf("--format %q: want text or json", format), "")
			}
			if del && len(args) != 1 {
				return usageError(fmt.Errorf("--delete takes exactly one tag name"), "sidecar tag --delete NAME")
			}
			open := withHistory
			if len(args) == 0 && !del {
				open = readHistory // listing only reads
			}
			return open(cmd, g, func(api history.API) error {
				ctx := cmd.Context()
				switch {
				case del:
					if err := api.DeleteTag(ctx, args[0]); err != nil {
						return historyError(err)
					}
					fmt.Fprintf(g.stdout, "deleted tag %s\n", args[0])
				case len(args) == 0:
					tags, err := api.Tags(ctx)
					if err != nil {
						return historyError(err)
					}
					if format == "json" {
						return json.NewEncoder(g.stdout).Encode(tags)
					}
					tw := tabwriter.NewWriter(g.stdout, 1, 4, 2, ' ', 0)
					for _, t := range tags {
						fmt.Fprintf(tw, "%s\t%s\t%s\t\n", t.Name, t.LSN, t.Created.Format("2006-01-02T15:04:05Z07:00"))
					}
					return tw.Flush()
				default:
					ref := "HEAD"
					if len(args) == 2 {
						ref = args[1]
					}
					t, err := api.CreateTag(ctx, args[0], ref)
					if err != nil {
						return historyError(err)
					}
					if format == "json" {
						return json.NewEncoder(g.stdout).Encode(t)
					}
					fmt.Fprintf(g.stdout, "tagged %s as %s\n", t.LSN, t.Name)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&del, "delete", false, "delete the tag NAME")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}
