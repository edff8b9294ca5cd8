package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/history"
)

func newScanCmd(g *globals) *cobra.Command {
	var req history.ReadRequest
	var format string
	cmd := &cobra.Command{
		Use:   "scan <table>",
		Short: "Rows in primary-key order, from the mirror, at any version",
		Long: `scan prints the rows of <table> in primary-key order as of --as-of (default
HEAD), from --from (inclusive) to --to (exclusive), both values of the
first primary-key column. --columns a,b prints only those columns, in that
order (at HEAD read from the in-memory heap's column segments, older
versions from the tree).

<table> is schema.name as in SQL and in the configuration: a bare name is
in public, unquoted parts fold to lower case, other names are
double-quoted ('app."Order Items"'); status lists each table this way.

Formats: table; json (one object per row keyed by column name, values as
PostgreSQL's text output or null); csv (header line, every value quoted,
NULL an empty unquoted field, as PostgreSQL's COPY … CSV FORCE QUOTE *).

Exit status: 0; 2 on error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			table, err := tableArg(args[0])
			if err != nil {
				return err
			}
			req.Table = table
			if req.Limit < 0 {
				return usageError(fmt.Errorf("--limit %d: want a positive count", req.Limit), "")
			}
			w, err := history.NewRowWriter(format, g.stdout)
			if err != nil {
				return usageError(err, "")
			}
			return readHistory(cmd, g, func(api history.API) error {
				started := false
				err := api.Scan(cmd.Context(), req, func(h history.ReadHeader) error {
					started = true
					return w.Header(h)
				}, w.Row)
				if err != nil && !started {
					return historyError(err)
				}
				if cerr := w.Close(); err == nil && cerr != nil {
					err = cerr
				}
				if err != nil {
					return historyError(err)
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.AsOf, "as-of", "", "read as of this ref (default HEAD)")
	f.StringVar(&req.From, "from", "", "first key value (inclusive) of the first primary-key column")
	f.StringVar(&req.To, "to", "", "last key value (exclusive)")
	f.IntVar(&req.Limit, "limit", 0, "at most N rows (default all)")
	f.StringVar(&format, "format", "table", "output format: table, json or csv")
	f.StringSliceVar(&req.Columns, "columns", nil, "only these columns, in this order (a,b; quote a name holding a comma as in CSV)")
	return cmd
}
