package sqlfront

import (
	"errors"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// An error below a LIMIT on a row PostgreSQL's plan may never read is
// refused, as sql/exec refuses it (sql/exec/limiterr.go): PostgreSQL
// stops reading once it has the rows it keeps when its plan reads in
// the ORDER BY's order (an index scan), and reads every row when it
// sorts, so `SELECT id, i4 * i4 FROM mx ORDER BY id DESC LIMIT 3`
// answers or fails 22003 as its statistics decide. The flat path reads
// every row under an ORDER BY … LIMIT (its top-N keeps the best), so
// when no row fails neither does any plan of PostgreSQL's; when one
// does, the data exception is refused (0A000) instead of raised. An
// aggregate without GROUP BY reads every row in PostgreSQL's plans too:
// its error stands, as do the errors of emit (rows kept).

// readsAll reports whether PostgreSQL reads every input row of p
// before its first output row: an aggregate without GROUP BY.
func (p *plan) readsAll() bool {
	return p.grouping && len(p.groupBy) == 0
}

// guardUnread runs cut (the select reading its input, passing the rows
// LIMIT keeps to emit) and refuses a data exception or cardinality
// violation raised on the input's rows; emit's errors stand.
func guardUnread(cut func(emit func([]Value) error) error, emit func([]Value) error) error {
	var down error
	err := cut(func(row []Value) error {
		if err := emit(row); err != nil {
			down = err
			return err
		}
		return nil
	})
	if err == nil || down != nil && errors.Is(err, down) {
		return err
	}
	code, msg := "", ""
	var fe *Error
	var te *types.Error
	switch {
	case errors.As(err, &fe):
		code, msg = fe.Code, fe.Msg
	case errors.As(err, &te):
		code, msg = te.Code, te.Message
	}
	if !strings.HasPrefix(code, "22") && code != "21000" {
		return err
	}
	return errf(codeUnsupported, -1, "not supported yet: an error (%s: %s) on a row below LIMIT that PostgreSQL's plan may stop before reading; whether PostgreSQL fails depends on its plan", code, msg)
}
