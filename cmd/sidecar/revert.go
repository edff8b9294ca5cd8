package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/history"
)

func newRevertCmd(g *globals) *cobra.Command {
	var req history.RevertRequest
	var format string
	cmd := &cobra.Command{
		Use:   "revert <ref> | revert <from> <to>",
		Short: "Undo one version, or the changes between two refs, keeping later writes, as a SQL patch",
		Long: `revert <ref> undoes the one version <ref> names (as git revert and dolt
revert do): the changes between the version before it and <ref>.

revert <from> <to> undoes what happened between <from> and <to> (e.g. a bad DELETE or
UPDATE) on top of --onto (default HEAD), keeping every later write: the
three-way merge with base <to>, ours --onto, theirs <from>, printed as the
SQL patch that turns --onto into the result. Apply it with psql:

  sidecar revert before-bad-migration after-bad-migration > undo.sql
  psql "$DATABASE_URL" -f undo.sql
  sidecar revert 0/16B3748 > undo.sql     # one version (see sidecar log)

Rows that the bad change and later writes both changed (in the same
columns) are conflicts: the patch leaves them as they are now and they are
listed on stderr.

A revert across a schema change (ALTER TABLE between the versions) is
refused before anything is printed; sidecar diff compares across it.

Exit status: 0 clean; 1 conflicts (listed); 2 on error.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 2 {
				req.From, req.To = args[0], args[1]
			} else {
				req.To = args[0]
			}
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
				if req.From == "" {
					from, to, err := versionBefore(cmd.Context(), api, req.To)
					if err != nil {
						return history.MergeSummary{}, err
					}
					req.From, req.To = from, to
				}
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

// versionBefore resolves the one-version revert of ref: the version ref
// names and the one before it (the next entry of the log), as LSNs.
func versionBefore(ctx context.Context, api history.API, ref string) (from, to string, err error) {
	var entries []history.LogEntry
	err = api.Log(ctx, history.LogRequest{Until: ref, Limit: 2}, func(e history.LogEntry) error {
		entries = append(entries, e)
		return nil
	})
	switch {
	case err != nil:
		return "", "", err
	case len(entries) == 0:
		return "", "", fmt.Errorf("revert %s: %w: no version at or before it", ref, history.ErrBadRequest)
	case entries[0].InitialCopy || entries[0].Resync:
		return "", "", fmt.Errorf("revert %s: %w: %s is a table copy, not a commit; nothing before it to return to", ref, history.ErrBadRequest, entries[0].LSN)
	case len(entries) == 1:
		return "", "", fmt.Errorf("revert %s: %w: %s is the oldest version kept (history.retain); there is no version before it to return to", ref, history.ErrBadRequest, entries[0].LSN)
	}
	return entries[1].LSN, entries[0].LSN, nil
}
