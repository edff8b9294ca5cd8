package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/history"
)

func newGetCmd(g *globals) *cobra.Command {
	var req history.ReadRequest
	var format string
	cmd := &cobra.Command{
		Use:   "get <table> <pk>...",
		Short: "Rows by primary key, from the mirror, at any version",
		Long: `get prints the rows of <table> under the given primary keys, as of --as-of
(default HEAD). A key of several columns takes that many arguments, in key
order; give several keys one after another.

<table> is schema.name as in SQL and in the configuration: a bare name is
in public, unquoted parts fold to lower case, other names are
double-quoted ('app."Order Items"'); status lists each table this way.

--format json prints one object per row, keyed by column name, values as
PostgreSQL's text output or null. Keys not found are listed on stderr.

Exit status: 0 (also when keys are not found); 2 on error.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			table, err := tableArg(args[0])
			if err != nil {
				return err
			}
			req.Table, req.PK = table, args[1:]
			w, err := history.NewRowWriter(format, g.stdout)
			if err != nil {
				return usageError(err, "")
			}
			return readHistory(cmd, g, func(api history.API) error {
				res, err := api.Get(cmd.Context(), req)
				if err != nil {
					return historyError(err)
				}
				if err := w.Header(res.ReadHeader); err != nil {
					return usageError(err, "")
				}
				for i := range res.Rows {
					if err := w.Row(&res.Rows[i]); err != nil {
						return usageError(err, "")
					}
				}
				if err := w.Close(); err != nil {
					return usageError(err, "")
				}
				for _, k := range res.Missing {
					fmt.Fprintf(g.stderr, "not found: %s %q at %s\n", req.Table, k, res.LSN)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&req.AsOf, "as-of", "", "read as of this ref (default HEAD)")
	cmd.Flags().StringVar(&format, "format", "table", "output format: table, json or csv")
	cmd.Flags().StringSliceVar(&req.Columns, "columns", nil, "only these columns, in this order (a,b; quote a name holding a comma as in CSV)")
	return cmd
}
