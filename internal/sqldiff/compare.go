package sqldiff

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Class is how the sidecar's answer to a statement relates to
// PostgreSQL's.
type Class string

const (
	// Identical: same columns (names and type OIDs) and the same rows, in
	// the same order when the statement orders them.
	Identical Class = "identical"
	// OrderOnly: the same rows under ORDER BY in another order. Rows that
	// tie on the sort keys may come in any order, so this is not counted
	// wrong; it is reported.
	OrderOnly Class = "order-only"
	// Refused: PostgreSQL answered, the sidecar refused with a SQLSTATE of
	// class 0A (feature not supported), 42 (it does not know a name) or 53
	// (a resource limit).
	Refused Class = "refused"
	// Timeout: the sidecar did not answer within the statement timeout.
	Timeout Class = "timeout"
	// Different: both answered, with different rows. A wrong answer.
	Different Class = "different"
	// Columns: the same rows under other column names or types. A wrong
	// answer too (clients read the names and decode by the types).
	Columns Class = "columns"
	// ErrorMismatch: PostgreSQL answered and the sidecar failed with an
	// error that is not a refusal (a data exception, an internal error).
	ErrorMismatch Class = "error-mismatch"
	// AnsweredError: PostgreSQL failed and the sidecar answered. A wrong
	// answer: the user gets rows where PostgreSQL says the query is wrong.
	AnsweredError Class = "answered-error"
	// PGError: PostgreSQL failed and so did the sidecar; not counted.
	PGError Class = "pg-error"
	// ErrorCode: PostgreSQL failed and the sidecar failed with another
	// SQLSTATE that is not a refusal (classes 0A, 42, 53, as for Refused):
	// a client that tells 22003 from 22012 gets the wrong one. A wrong
	// answer, not counted in the percentages.
	ErrorCode Class = "error-code"
	// Volatile: not compared (random(), now(), sequences, …).
	Volatile Class = "volatile"
)

// Wrong reports whether c is a wrong answer (the corpus test fails on it
// unless the statement is listed as known wrong).
func (c Class) Wrong() bool {
	return c == Different || c == Columns || c == AnsweredError || c == ErrorCode
}

// Counted reports whether c counts in a file's percentage: statements
// PostgreSQL answers.
func (c Class) Counted() bool {
	return c != PGError && c != Volatile && c != AnsweredError && c != ErrorCode
}

// refusalState reports whether a sidecar SQLSTATE is a refusal: a
// feature it lacks (0A), a name it does not know (42), a resource limit
// (53).
func refusalState(code string) bool {
	return strings.HasPrefix(code, "0A") || strings.HasPrefix(code, "42") || strings.HasPrefix(code, "53")
}

// Outcome is the comparison of one statement.
type Outcome struct {
	Class   Class
	Code    string // the sidecar's SQLSTATE (Refused, Timeout, ErrorMismatch)
	Message string // the sidecar's message, or what differs
}

// answer is one server's reply to a statement.
type answer struct {
	cols []string // name:oid
	rows []string // fields joined, NULL as \N, binary values in hex
	err  error
}

// run executes sql with the extended protocol and one result format for
// every column (0 text, 1 binary).
func run(ctx context.Context, c *pgconn.PgConn, sql string, format int16, timeout time.Duration) answer {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res := c.ExecParams(ctx, sql, nil, nil, nil, []int16{format}).Read()
	var a answer
	if res.Err != nil {
		a.err = res.Err
		return a
	}
	for _, f := range res.FieldDescriptions {
		a.cols = append(a.cols, fmt.Sprintf("%s:%d", f.Name, f.DataTypeOID))
	}
	for _, r := range res.Rows {
		a.rows = append(a.rows, rowString(r, format))
	}
	return a
}

// rowString prints a row for comparison.
func rowString(r [][]byte, format int16) string {
	var b strings.Builder
	for i, v := range r {
		if i > 0 {
			b.WriteByte('|')
		}
		switch {
		case v == nil:
			b.WriteString(`\N`)
		case format == 1:
			fmt.Fprintf(&b, "%x", v)
		default:
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(string(v), `\`, `\\`), "|", `\|`))
		}
	}
	return b.String()
}

// sqlState is err's SQLSTATE and message ("" when it is not a server error).
func sqlState(err error) (string, string) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code, pe.Message
	}
	return "", err.Error()
}

// classify compares PostgreSQL's answer want with the sidecar's got.
func classifyAnswers(st Statement, want, got answer) Outcome {
	if st.Volatile {
		return Outcome{Class: Volatile}
	}
	if want.err != nil {
		if code, _ := sqlState(want.err); code == "57014" || errors.Is(want.err, context.DeadlineExceeded) {
			// PostgreSQL itself did not answer within the statement
			// timeout (a slow plan on a loaded machine): nothing to compare.
			return Outcome{Class: Volatile, Message: "PostgreSQL did not answer within the statement timeout"}
		}
		if got.err != nil {
			return Outcome{Class: PGError}
		}
		code, msg := sqlState(want.err)
		return Outcome{Class: AnsweredError, Message: fmt.Sprintf("PostgreSQL: %s %s; the sidecar answered %d rows", code, msg, len(got.rows))}
	}
	if got.err != nil {
		code, msg := sqlState(got.err)
		switch {
		case code == "57014" || errors.Is(got.err, context.DeadlineExceeded) || (code == "" && strings.Contains(msg, "timeout")):
			return Outcome{Class: Timeout, Code: code, Message: msg}
		case refusalState(code):
			return Outcome{Class: Refused, Code: code, Message: msg}
		default:
			return Outcome{Class: ErrorMismatch, Code: code, Message: msg}
		}
	}
	sameRows := slices.Equal(want.rows, got.rows)
	if !sameRows {
		w, g := slices.Clone(want.rows), slices.Clone(got.rows)
		slices.Sort(w)
		slices.Sort(g)
		if !slices.Equal(w, g) {
			return Outcome{Class: Different, Message: rowDiff(want.rows, got.rows)}
		}
		if st.Ordered {
			return Outcome{Class: OrderOnly, Message: rowDiff(want.rows, got.rows)}
		}
	}
	if !slices.Equal(want.cols, got.cols) {
		return Outcome{Class: Columns, Message: fmt.Sprintf("columns %s, PostgreSQL %s", strings.Join(got.cols, ","), strings.Join(want.cols, ","))}
	}
	return Outcome{Class: Identical}
}

// rowDiff summarizes how two row lists differ (the first rows each side
// has that the other lacks).
func rowDiff(want, got []string) string {
	missing, extra := multisetMinus(want, got), multisetMinus(got, want)
	var b strings.Builder
	fmt.Fprintf(&b, "PostgreSQL %d rows, sidecar %d", len(want), len(got))
	show := func(label string, xs []string) {
		if len(xs) == 0 {
			return
		}
		fmt.Fprintf(&b, "; %s %d:", label, len(xs))
		for i, x := range xs {
			if i == 3 {
				b.WriteString(" …")
				break
			}
			fmt.Fprintf(&b, " [%.80s]", x)
		}
	}
	show("only PostgreSQL's", missing)
	show("only the sidecar's", extra)
	if len(missing) == 0 && len(extra) == 0 {
		for i := range want {
			if want[i] != got[i] {
				fmt.Fprintf(&b, "; first difference at row %d: PostgreSQL [%.80s], sidecar [%.80s]", i+1, want[i], got[i])
				break
			}
		}
	}
	if len(missing) == 1 && len(extra) == 1 {
		// One row each, alike past the 80 characters shown: where they part.
		w, g := missing[0], extra[0]
		n := 0
		for n < len(w) && n < len(g) && w[n] == g[n] {
			n++
		}
		from := max(0, n-20)
		fmt.Fprintf(&b, "; they differ at character %d: PostgreSQL …%.80s, sidecar …%.80s", n, w[from:], g[from:])
	}
	return b.String()
}

// multisetMinus is a − b as multisets, in a's order.
func multisetMinus(a, b []string) []string {
	n := make(map[string]int, len(b))
	for _, x := range b {
		n[x]++
	}
	var out []string
	for _, x := range a {
		if n[x] > 0 {
			n[x]--
			continue
		}
		out = append(out, x)
	}
	return out
}

// NewStatement parses and classifies one statement (line 0).
func NewStatement(sql string) Statement {
	st := Statement{SQL: sql}
	classify(&st)
	return st
}

// Compare runs st on PostgreSQL's session and the sidecar's (the
// sidecar's first when sidecarFirst, so that a benchmark can alternate
// which one runs on a warm cache) and classifies the sidecar's answer;
// it returns each side's wall time.
func Compare(ctx context.Context, pgs, scs *Session, st Statement, timeout time.Duration, sidecarFirst bool) (o Outcome, pgTook, scTook time.Duration) {
	var want, got answer
	timed := func(s *Session, a *answer, d *time.Duration) {
		start := time.Now()
		*a = s.Run(ctx, st.SQL, 0, timeout)
		*d = time.Since(start)
	}
	if sidecarFirst {
		timed(scs, &got, &scTook)
		timed(pgs, &want, &pgTook)
	} else {
		timed(pgs, &want, &pgTook)
		timed(scs, &got, &scTook)
	}
	return classifyAnswers(st, want, got), pgTook, scTook
}
