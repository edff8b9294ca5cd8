package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/history"
)

func newMergeCmd(g *globals) *cobra.Command {
	var req history.MergeRequest
	var format string
	cmd := &cobra.Command{
		Use:   "merge <ours> <theirs>",
		Short: "Three-way merge of two refs; conflicts listed, result kept as a branch",
		Long: `merge applies to <ours> the changes <theirs> made since their common
ancestor (--base; default the older of the two commits, which is the common
ancestor on the mirror's linear history). A row both changed merges column
by column when they changed different columns; otherwise it is a conflict,
listed with its base, ours and theirs rows, and keeps ours' version.

--branch NAME stores the result as a branch. --format sql prints the patch
that turns <ours> into the result; --format json prints the events as JSON
lines and a final {"type":"summary",…} line.

Exit status: 0 clean; 1 conflicts (listed); 2 on error.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Ours, req.Theirs = args[0], args[1]
			if err := tableArgs(req.Tables); err != nil {
				return err
			}
			var w history.DiffWriter
			var err error
			switch format {
			case "text":
				w, err = history.NewDiffWriter("table", g.stdout)
			case "json":
				w, err = history.NewDiffWriter(format, g.stdout)
			case "sql":
				w, err = history.NewDiffWriterOptions(format, g.stdout, patchOptions(cmd.Context(), g))
				req.Patch = true
			default:
				return usageError(fmt.Errorf("--format %q: want text, json or sql", format), "")
			}
			if err != nil {
				return usageError(err, "")
			}
			return runMerge(cmd, g, w, format, false, func(api history.API, fn func(*history.Event) error) (history.MergeSummary, error) {
				return api.Merge(cmd.Context(), req, fn)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Base, "base", "", "common ancestor (default: the older of the two commits)")
	f.StringVar(&req.Branch, "branch", "", "store the result as this new branch")
	f.StringArrayVar(&req.Tables, "table", nil, "only this table (schema.name, quoted as in SQL where needed); repeatable; default all")
	f.StringVar(&format, "format", "text", "output format: text, json or sql")
	return cmd
}

// reportMerge prints the summary (stdout for text and json; stderr beside
// a SQL patch, with the conflicts) and sets the exit status.
func reportMerge(g *globals, format string, sum history.MergeSummary, conflicts []*history.Event, revert bool) error {
	switch format {
	case "json":
		line := history.SummaryLine{Type: history.EventSummary, Summary: sum}
		if err := json.NewEncoder(g.stdout).Encode(line); err != nil {
			return usageError(err, "")
		}
	case "text":
		printSummary(g.stdout, sum, revert)
	default:
		if len(conflicts) > 0 {
			w, _ := history.NewDiffWriter("table", g.stderr)
			table := ""
			for _, c := range conflicts {
				if c.Table != table {
					table = c.Table
					w.Write(&history.Event{Type: history.EventTable, Table: table, FromRef: sum.Ours, ToRef: "merge", Columns: columnsOfRow(c)})
				}
				w.Write(c)
			}
			w.Close()
		}
		printSummary(g.stderr, sum, revert)
	}
	if sum.Conflicts > 0 {
		return silentExit(exitFound)
	}
	return nil
}

func printSummary(w io.Writer, sum history.MergeSummary, revert bool) {
	applied, resolved := 0, 0
	for _, t := range sum.Tables {
		applied += t.Applied
		resolved += t.Resolved
	}
	if revert {
		// Revert is merge(base = to, ours = onto, theirs = from).
		fmt.Fprintf(w, "revert of %s..%s onto %s: %d rows to change, %d merged column-wise, %d conflicts\n",
			sum.Theirs, sum.Base, sum.Ours, sum.Changes, resolved, sum.Conflicts)
		if sum.Conflicts > 0 {
			fmt.Fprintln(w, "conflicting rows were changed again after the reverted change; the patch leaves them as they are (b = after the change, o = now, t = before it)")
		}
		return
	}
	fmt.Fprintf(w, "merged %s into %s (base %s): %d changes applied, %d rows merged column-wise, %d conflicts",
		sum.Theirs, sum.Ours, sum.Base, applied, resolved, sum.Conflicts)
	if sum.Branch != "" {
		fmt.Fprintf(w, "; result in branch %s", sum.Branch)
	}
	fmt.Fprintln(w)
	if sum.Conflicts > 0 {
		fmt.Fprintln(w, "conflicting rows keep ours' version (b = base, o = ours, t = theirs)")
	}
}

// columnsOfRow recovers column names from a conflict's rows for the table
// header of conflicts printed beside a SQL patch.
func columnsOfRow(e *history.Event) []history.Column {
	for _, r := range []*history.Row{e.Ours, e.Theirs, e.Base} {
		if r != nil {
			cols := make([]history.Column, len(r.Names))
			for i, n := range r.Names {
				cols[i] = history.Column{Name: n}
			}
			return cols
		}
	}
	return nil
}

// runMerge runs a merge or revert through the daemon or the data
// directory: events go to w as they come (conflicts are listed after a
// SQL patch instead of inside it), then the summary and the exit status
// (1 with conflicts).
func runMerge(cmd *cobra.Command, g *globals, w history.DiffWriter, format string, revert bool,
	run func(history.API, func(*history.Event) error) (history.MergeSummary, error)) error {
	return withHistory(cmd, g, func(api history.API) error {
		var conflicts []*history.Event
		out := &eventOut{w: w}
		sum, err := run(api, func(e *history.Event) error {
			if e.Type == history.EventConflict {
				conflicts = append(conflicts, e)
				if format == "sql" {
					return nil
				}
			}
			return out.write(e)
		})
		if err := out.finish(err); err != nil {
			return err
		}
		return reportMerge(g, format, sum, conflicts, revert)
	})
}
