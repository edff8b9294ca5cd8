package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/client"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/query"
)

func newAggCmd(g *globals) *cobra.Command {
	var (
		count                  bool
		sums, mins, maxs, avgs []string
		groupBy                []string
		where, having, orderBy string
		limit                  int
		asOf, format           string
		countCols              []string
	)
	cmd := &cobra.Command{
		Use:   "agg <table>",
		Short: "Aggregates (count, sum, min, max, avg, GROUP BY) over a table at any version",
		Long: `agg computes aggregates over <table> as of --as-of (default HEAD) with the
scan engine of package query: filters on whole column segments, PostgreSQL's
result types (sum of integer is bigint, of bigint numeric, avg of an integer
numeric, of a float double precision) and PostgreSQL's output texts.

Output columns are the GROUP BY columns, then the aggregates in the order
count(*), count(C), sum, min, max, avg, each flag in the order given; an
aggregate is named as in SQL: count(*), sum(score). --having and --order-by
refer to these names.

  sidecar agg public.t --count --sum score --group-by grp \
      --where "score > 0 AND k LIKE 'ab%'" --having "sum(score) > 100" \
      --order-by "sum(score) desc,grp" --limit 10

--where and --having: predicates col op value (= <> != < <= > >=),
BETWEEN v AND w, IN (v, …), IS [NOT] NULL, LIKE 'prefix%', with AND, OR,
NOT and parentheses; values are numbers, 'quoted strings' or words (NaN,
Infinity, true). Text compares bytewise (as under the "C" collation).
Supported column types: smallint, integer, bigint, real, double
precision, numeric (exact), date, timestamp, timestamptz (literals in
ISO form: '2024-01-31 12:00:00'), boolean and text-like types.

With a daemon running, the query goes to it (POST /api/query): at HEAD
it runs on the daemon's in-memory model (the heap's column segments, one
committed version, while apply goes on); with --as-of, or without a
daemon, the rows are read from the mirror's Prolly tree at the version
named (row at a time, exact), loaded into a heap and aggregated there.
The answer names the version read (its LSN, the ref and where it was
read, on stderr, so stdout stays the result). Formats as for scan: table, json (one
object per result row, keyed by output column name), csv.

Exit status: 0; 2 on error (bad column, type or expression: before any
row is read).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			table, err := tableArg(args[0])
			if err != nil {
				return err
			}
			req := query.Request{Table: table, GroupBy: groupBy, Limit: limit, AsOf: asOf}
			if count {
				req.Aggs = append(req.Aggs, query.Agg{Func: "count"})
			}
			for _, fa := range []struct {
				fn   string
				cols []string
			}{{"count", countCols}, {"sum", sums}, {"min", mins}, {"max", maxs}, {"avg", avgs}} {
				for _, c := range fa.cols {
					req.Aggs = append(req.Aggs, query.Agg{Func: fa.fn, Col: c})
				}
			}
			if where != "" {
				if req.Where, err = query.ParseExpr(where); err != nil {
					return usageError(fmt.Errorf("--where: %w", err), "")
				}
			}
			if having != "" {
				if req.Having, err = query.ParseExpr(having); err != nil {
					return usageError(fmt.Errorf("--having: %w", err), "")
				}
			}
			if req.OrderBy, err = parseOrderBy(orderBy); err != nil {
				return usageError(err, "")
			}
			w, err := history.NewRowWriter(format, g.stdout)
			if err != nil {
				return usageError(err, "")
			}
			return readHistory(cmd, g, func(api history.API) error {
				hdr, rows, err := runAgg(cmd.Context(), api, req)
				if errors.Is(err, query.ErrBadRequest) || isBadRequest(err) {
					return usageError(err, "sidecar scan --limit 1 "+req.Table+" (shows the columns)")
				}
				if err != nil {
					return historyError(err)
				}
				if err := writeAggRows(w, hdr, rows); err != nil {
					return err
				}
				_, err = fmt.Fprintf(g.stderr, "%s as of %s (%s, read from the %s)\n", hdr.Table, hdr.LSN, hdr.Ref, hdr.Read)
				return err
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&count, "count", false, "count(*)")
	f.StringArrayVar(&countCols, "count-col", nil, "count(C): non-NULL values of C (repeatable)")
	f.StringArrayVar(&sums, "sum", nil, "sum(C) (repeatable)")
	f.StringArrayVar(&mins, "min", nil, "min(C) (repeatable)")
	f.StringArrayVar(&maxs, "max", nil, "max(C) (repeatable)")
	f.StringArrayVar(&avgs, "avg", nil, "avg(C) (repeatable)")
	f.StringSliceVar(&groupBy, "group-by", nil, "GROUP BY columns, comma-separated")
	f.StringVar(&where, "where", "", "filter rows (see above)")
	f.StringVar(&having, "having", "", "filter groups by aggregate or group column")
	f.StringVar(&orderBy, "order-by", "", "output columns, comma-separated, each optionally followed by asc or desc (default: the group columns)")
	f.IntVar(&limit, "limit", 0, "at most N result rows (default all)")
	f.StringVar(&asOf, "as-of", "", "read as of this ref (default HEAD)")
	f.StringVar(&format, "format", "table", "output format: table, json or csv")
	return cmd
}

// parseOrderBy reads "sum(score) desc,grp".
func parseOrderBy(s string) ([]query.Order, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []query.Order
	for _, part := range strings.Split(s, ",") {
		fields := strings.Fields(part)
		if len(fields) == 0 || len(fields) > 2 {
			return nil, fmt.Errorf("--order-by %q: want NAME [asc|desc], comma-separated", s)
		}
		o := query.Order{Key: fields[0]}
		if len(fields) == 2 {
			switch strings.ToLower(fields[1]) {
			case "asc":
			case "desc":
				o.Desc = true
			default:
				return nil, fmt.Errorf("--order-by %q: %q is neither asc nor desc", s, fields[1])
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// runAgg answers req: through a running daemon's POST /api/query (which
// reads HEAD from its in-memory model), or, without a daemon, from the
// trees of the data directory.
func runAgg(ctx context.Context, api history.API, req query.Request) (query.Header, []*history.Row, error) {
	if r, ok := api.(*history.Remote); ok {
		return query.RunRemote(ctx, r.T, req)
	}
	res, hdr, err := query.RunTree(ctx, api, req)
	if err != nil {
		return query.Header{}, nil, err
	}
	return query.Header{Table: hdr.Table, LSN: hdr.LSN, Ref: hdr.Ref, Columns: res.Columns, Read: query.ReadTree}, res.HistoryRows(), nil
}

// isBadRequest: the daemon refused the request (400: bad column, type or
// expression).
func isBadRequest(err error) bool {
	var ae *client.APIError
	return errors.As(err, &ae) && ae.Status == 400
}

func writeAggRows(w history.RowWriter, hdr query.Header, rows []*history.Row) error {
	out := history.ReadHeader{Table: hdr.Table, LSN: hdr.LSN, Ref: hdr.Ref}
	for _, c := range hdr.Columns {
		out.Columns = append(out.Columns, history.Column{Name: c.Name, Type: c.Type})
	}
	if err := w.Header(out); err != nil {
		return err
	}
	for _, row := range rows {
		if err := w.Row(row); err != nil {
			return err
		}
	}
	return w.Close()
}
