package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/history"
)

// eventOut writes a diff or merge event stream to stdout and knows
// whether anything was printed, so an error before the first event is
// reported alone (exit 2, no output).
type eventOut struct {
	w history.DiffWriter
	n int
}

func (o *eventOut) write(e *history.Event) error {
	o.n++
	return o.w.Write(e)
}

// finish closes the writer (a SQL patch whose stream failed ends in
// ROLLBACK) and maps err to exit status 2.
func (o *eventOut) finish(err error) error {
	if err != nil && o.n == 0 {
		return historyError(err)
	}
	if f, ok := o.w.(interface{ Fail(error) }); ok && err != nil {
		f.Fail(err)
	}
	cerr := o.w.Close()
	if err != nil {
		return historyError(err)
	}
	if cerr != nil {
		return usageError(fmt.Errorf("write output: %w", cerr), "")
	}
	return nil
}

func newDiffCmd(g *globals) *cobra.Command {
	var req history.DiffRequest
	var format string
	var exitCode bool
	cmd := &cobra.Command{
		Use:   "diff <from> <to>",
		Short: "Rows added, removed and changed between two refs",
		Long: `diff streams the differences between two versions, table by table, in key
order, in time proportional to the change (equal subtrees are skipped).
Rows are compared by column name.

Formats:
  table  for terminals: "+" added, "-" removed, "<" old and ">" new side of
         a changed row
  json   one object per line (a stable contract): {"type":"table",…} per
         table, then {"type":"row","op":"added|removed|changed","key":{…},
         "from":{…},"to":{…},"changed":[…]}; with --stat {"type":"stat",…}.
         A row is an object keyed by column name whose values are
         PostgreSQL's text output (strings) or null.
  sql    a patch that turns <from> into <to>: INSERT, UPDATE (only changed
         columns) and DELETE keyed by the primary key, values as literals
         cast to the column type, in one transaction, ordered so foreign
         keys (read from PostgreSQL) and unique constraints hold.

--where restricts the diff to a key range of the first primary-key column:
  --where "id >= 100 AND id < 200"

Exit status: 0; 1 with --exit-code when there are differences; 2 on error.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.From, req.To = args[0], args[1]
			if err := tableArgs(req.Tables); err != nil {
				return err
			}
			switch {
			case req.Stat && format == "sql":
				return usageError(fmt.Errorf("--stat counts changes; a SQL patch needs the rows: drop --stat or use --format table|json"), "sidecar diff A B --stat")
			case req.Stat && req.Limit > 0:
				return usageError(fmt.Errorf("--stat counts every difference; it cannot be combined with --limit"), "")
			case req.Limit > 0 && format == "sql":
				return usageError(fmt.Errorf("--limit would cut the SQL patch short; a partial patch does not turn <from> into <to>"), "sidecar diff A B --format sql --where \"id < 1000\"")
			case req.Limit < 0:
				return usageError(fmt.Errorf("--limit %d: want a positive count", req.Limit), "")
			}
			var opts history.SQLOptions
			if format == "sql" {
				opts = patchOptions(cmd.Context(), g)
			}
			w, err := history.NewDiffWriterOptions(format, g.stdout, opts)
			if err != nil {
				return usageError(err, "sidecar diff A B --format json")
			}
			return readHistory(cmd, g, func(api history.API) error {
				out := &eventOut{w: w}
				sum, err := api.Diff(cmd.Context(), req, out.write)
				if err := out.finish(err); err != nil {
					return err
				}
				if exitCode && sum.Rows > 0 {
					return silentExit(exitFound)
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&req.Tables, "table", nil, "only this table (schema.name, quoted as in SQL where needed); repeatable; default all")
	f.StringVar(&format, "format", "table", "output format: table, json or sql")
	f.BoolVar(&req.Stat, "stat", false, "per table counts of rows added, removed and changed")
	f.StringVar(&req.Where, "where", "", "key range on the first primary-key column, e.g. \"id >= 10 AND id < 20\"")
	f.IntVar(&req.Limit, "limit", 0, "at most N rows (default all)")
	f.BoolVar(&exitCode, "exit-code", false, "exit 1 when there are differences")
	return cmd
}
