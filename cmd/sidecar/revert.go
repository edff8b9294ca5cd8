package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/history"
)

func newRevertCmd(g *globals) *cobra.Command {
	var req history.RevertRequest
	var format string
	cmd := &cobra.Command{
		Use:   "revert <from> <to>",
		Short: "Undo the changes between two refs, keeping later writes, as a SQL patch",
		Long: `revert undoes what happened between <from> and <to> (e.g. a bad DELETE or
UPDATE) on top of --onto (default HEAD), keeping every later write: the
three-way merge with base <to>, ours --onto, theirs <from>, printed as the
SQL patch that turns --onto into the result. Apply it with psql:

  sidecar revert before-bad-migration after-bad-migration > undo.sql
  psql "$DATABASE_URL" -f undo.sql

Rows that the bad change and later writes both changed (in the same
columns) are conflicts: the patch leaves them as they are now and they are
listed on stderr.

Exit status: 0 clean; 1 conflicts (listed); 2 on error.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.From, req.To = args[0], args[1]
			if err := tableArgs(req.Tables); err != nil {
				return err
			}
			if format != "sql" && format != "json" && format != "text" {
				return usageError(fmt.Errorf("--format %q: want sql, json or text", format), "")
			}
			wf := format
			if wf == "text" {
				wf = "table"
			}
			var opts history.SQLOptions
			if wf == "sql" {
				opts = patchOptions(cmd.Context(), g)
			}
			w, err := history.NewDiffWriterOptions(wf, g.stdout, opts)
			if err != nil {
				return usageError(err, "")
			}
			return runMerge(cmd, g, w, format, true, func(api history.API, fn func(*history.Event) error) (history.MergeSummary, error) {
				return api.Revert(cmd.Context(), req, fn)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Onto, "onto", "", "apply the undo on top of this ref (default HEAD)")
	f.StringArrayVar(&req.Tables, "table", nil, "only this table (schema.name, quoted as in SQL where needed); repeatable; default all")
	f.StringVar(&format, "format", "sql", "output format: sql, json or text")
	return cmd
}
