package verify

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/rowenc"
)

// Results of a table or of a whole run, as reports and metrics name them.
const (
	ResultEqual       = "equal"
	ResultDifferences = "differences"
	ResultError       = "error"
)

// Report is the outcome of one verification run. Its JSON shape is the
// contract of `sidecar verify --format json` and POST /api/verify.
type Report struct {
	// LSN is the pinned position C: PostgreSQL's snapshot saw exactly the
	// commits ending at or before it.
	LSN string `json:"lsn"`
	// MirrorVersion is the end LSN of the mirror's version compared: its
	// last commit ending at or before LSN (empty if the mirror holds only
	// copies, no commit yet).
	MirrorVersion string `json:"mirror_version_lsn,omitempty"`
	// CaughtUp says how the mirror is known to hold every commit up to
	// LSN (the stream passed it, or no published commit in between).
	CaughtUp string    `json:"caught_up"`
	Started  time.Time `json:"started"`
	Seconds  float64   `json:"seconds"`
	// PinSeconds is the time to pin PostgreSQL (slot creation waits for
	// the write transactions open when it starts); CatchUpSeconds the
	// wait for the mirror to reach LSN.
	PinSeconds     float64 `json:"pin_seconds"`
	CatchUpSeconds float64 `json:"catch_up_seconds"`
	// Result is equal when every table is, error when any could not be
	// verified, differences otherwise.
	Result string        `json:"result"`
	Tables []TableReport `json:"tables"`
}

// TableReport is one table's outcome.
type TableReport struct {
	Table  string `json:"table"`
	Result string `json:"result"`
	Error  string `json:"error,omitempty"`
	// Hash is the row hash both sides used (pghash64, md5-64, sha256-64).
	Hash          string `json:"hash,omitempty"`
	PostgresCount uint64 `json:"postgres_rows"`
	MirrorCount   uint64 `json:"mirror_rows"`
	// Scheme (boundary or hash), Buckets and DirtyBuckets describe level 0.
	Scheme       string `json:"bucket_scheme,omitempty"`
	Buckets      int    `json:"buckets"`
	DirtyBuckets int    `json:"dirty_buckets"`
	Differences  int    `json:"differences"`
	// Workers is the number of PostgreSQL connections level 0 was split
	// over (omitted for the serial scan).
	Workers int     `json:"level0_workers,omitempty"`
	Seconds float64 `json:"seconds"`
	// DirtySeconds is the time spent on the dirty buckets: the leaf step
	// on both sides and reading the differing rows (0 when none).
	DirtySeconds float64 `json:"dirty_seconds,omitempty"`
	// Columns name the values of the rows below, in table order.
	Columns []string `json:"columns,omitempty"`
	// Rows are the first differences (Runner.MaxRowDiffs), in key order.
	Rows []RowDifference `json:"rows,omitempty"`
}

// RowDifference is one differing key with both sides' rows (column texts
// as PostgreSQL prints them, null for NULL; a side without the row is
// null).
type RowDifference struct {
	// Kind is missing (in PostgreSQL, not in the mirror), extra (in the
	// mirror only) or changed.
	Kind     string    `json:"kind"`
	Key      []string  `json:"key"`
	Mirror   []*string `json:"mirror"`
	Postgres []*string `json:"postgres"`
}

func (tr *TableReport) fail(err error) {
	tr.Result = ResultError
	tr.Error = err.Error()
}

func (r *Report) overall() string {
	res := ResultEqual
	for _, t := range r.Tables {
		switch t.Result {
		case ResultError:
			return ResultError
		case ResultDifferences:
			res = ResultDifferences
		}
	}
	return res
}

// ExitCode is the process exit status for the report: 0 all equal, 1
// differences, 2 a table could not be verified.
func (r *Report) ExitCode() int {
	switch r.Result {
	case ResultEqual:
		return 0
	case ResultDifferences:
		return 1
	}
	return 2
}

// WriteText writes the report for people: one line per table, then each
// difference with both sides' rows.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "pinned at %s", r.LSN)
	if r.MirrorVersion != "" {
		fmt.Fprintf(w, " (mirror version %s)", r.MirrorVersion)
	}
	fmt.Fprintf(w, ", %.2f s (pin %.2f s, mirror catch-up %.2f s): %s\n\n", r.Seconds, r.PinSeconds, r.CatchUpSeconds, r.Result)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "table\tresult\trows\thash\tbuckets\tdirty\tdifferences\tseconds")
	for _, t := range r.Tables {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d (%s)\t%d\t%d\t%.2f\n", t.Table, t.Result, t.PostgresCount, t.Hash, t.Buckets, t.Scheme, t.DirtyBuckets, t.Differences, t.Seconds)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, t := range r.Tables {
		if t.Error != "" {
			fmt.Fprintf(w, "\n%s: could not verify: %s\n", t.Table, t.Error)
		}
		if len(t.Rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s: %d rows differ (PostgreSQL %d rows, mirror %d)", t.Table, t.Differences, t.PostgresCount, t.MirrorCount)
		if len(t.Rows) < t.Differences {
			fmt.Fprintf(w, "; the first %d:", len(t.Rows))
		}
		fmt.Fprintln(w)
		for _, d := range t.Rows {
			fmt.Fprintf(w, "  %s key (%s)\n", d.Kind, strings.Join(d.Key, ", "))
			if d.Postgres != nil {
				fmt.Fprintf(w, "    postgres: %s\n", rowText(t.Columns, d.Postgres))
			}
			if d.Mirror != nil {
				fmt.Fprintf(w, "    mirror:   %s\n", rowText(t.Columns, d.Mirror))
			}
		}
	}
	return nil
}

func rowText(cols []string, vals []*string) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		name := fmt.Sprint(i)
		if i < len(cols) {
			name = cols[i]
		}
		if v == nil {
			parts[i] = name + "=NULL"
		} else {
			parts[i] = fmt.Sprintf("%s=%q", name, *v)
		}
	}
	return strings.Join(parts, " ")
}

func textsOf(vals [][]byte) []*string {
	out := make([]*string, len(vals))
	for i, v := range vals {
		if v != nil {
			s := string(v)
			out[i] = &s
		}
	}
	return out
}

// RowsQuery returns a query yielding the output texts of every column of
// the rows with the given keys (key column texts), in no particular order.
func RowsQuery(t Table, keys [][]string) (string, error) {
	if err := t.Validate(); err != nil {
		return "", err
	}
	if len(keys) == 0 {
		return "", fmt.Errorf("table %s: no keys", t.Ident())
	}
	if len(t.Key) == 1 {
		// One IN list: an index scan for = ANY(…), not an OR of keys.
		lits := make([]string, len(keys))
		for i, k := range keys {
			if len(k) != 1 {
				return "", fmt.Errorf("table %s: key %q has %d values for a 1-column key", t.Ident(), k, len(k))
			}
			lit, err := QuoteLiteral(k[0])
			if err != nil {
				return "", fmt.Errorf("table %s: key %q: %w", t.Ident(), k[0], err)
			}
			lits[i] = lit
		}
		src := rowSource{t: t, where: fmt.Sprintf("%s IN (%s)", keyOperand(t.Columns[t.Key[0]]), strings.Join(lits, ", "))}
		return rowsSelect(src), nil
	}
	preds := make([]string, len(keys))
	for i, k := range keys {
		if len(k) != len(t.Key) {
			return "", fmt.Errorf("table %s: key %q has %d values for a %d-column key", t.Ident(), k, len(k), len(t.Key))
		}
		p, err := boundSQL(t, k, "=")
		if err != nil {
			return "", err
		}
		preds[i] = p
	}
	return rowsSelect(rowSource{t: t, where: strings.Join(preds, " OR ")}), nil
}

func rowsSelect(src rowSource) string {
	cols := make([]string, len(src.t.Columns))
	for i := range cols {
		cols[i] = src.text(i)
	}
	return fmt.Sprintf("SELECT %s FROM %s", strings.Join(cols, ", "), src.sql())
}

// FetchRows reads the rows with the given keys from PostgreSQL and returns
// them by encoded key (rowenc), as column texts (nil for NULL).
func FetchRows(ctx context.Context, conn *pgconn.PgConn, t Table, keys [][]string) (map[string][]*string, error) {
	codec, err := rowenc.NewKeyCodec(t.KeyKinds()...)
	if err != nil {
		return nil, err
	}
	out := map[string][]*string{}
	for start := 0; start < len(keys); start += 500 {
		q, err := RowsQuery(t, keys[start:min(len(keys), start+500)])
		if err != nil {
			return nil, err
		}
		rows, err := simpleQuery(ctx, conn, q)
		if err != nil {
			return nil, fmt.Errorf("rows of %s: %w", t.Ident(), err)
		}
		for _, r := range rows {
			kt := make([][]byte, len(t.Key))
			for i, k := range t.Key {
				kt[i] = r[k]
			}
			key, err := codec.Append(nil, kt)
			if err != nil {
				return nil, fmt.Errorf("rows of %s: %w", t.Ident(), err)
			}
			out[string(key)] = textsOf(r)
		}
	}
	return out, nil
}
