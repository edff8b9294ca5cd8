package exec

import (
	"errors"
	"strings"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// A LIMIT lets PostgreSQL stop reading its input once it has the rows
// it keeps, and which rows those are — and so which rows an expression
// below is ever evaluated on — depends on its plan: an index scan in
// the ORDER BY's order under a GroupAggregate reads the first groups
// only, a sequential scan and a sort read every row. The same statement
// over the same rows fails in one plan and answers in another (randmix
// seed 7108 q56: `… GROUP BY t1.id HAVING sum(DISTINCT t1.i4 * t1.i4)
// IS NOT NULL ORDER BY 1 DESC … LIMIT 10` answers over an unanalyzed
// table — Index Scan Backward, Incremental Sort — and fails 22003 once
// it is analyzed — Seq Scan, Sort — on the same 48 rows).
//
// The executor reads the whole input of such a LIMIT (its check that
// the rows kept do not depend on the input's order, limitorder.go, or
// a top-N sort), so when it reads no failing row neither does any plan
// of PostgreSQL's, and its answer stands. When it does, PostgreSQL may
// or may not have reached that row: the error (a data exception or a
// cardinality violation) is refused as not settled instead of raised.
// Errors where PostgreSQL's plan certainly reads the row stay: the rows
// past the cut were read (emit's own errors come from rows kept), the
// input's order is PostgreSQL's too (pgOrdered: no check), or the input
// is an aggregate without groups (it reads every row before its one).

// limitErrorUnsettled refuses err, raised below a LIMIT on rows
// PostgreSQL's plan may never read.
func limitErrorUnsettled(te *types.Error) error {
	return &types.Error{Code: types.CodeUnsupported,
		Message: "not supported yet: an error (" + te.Code + ": " + te.Message + ") on a row below LIMIT that PostgreSQL's plan may stop before reading; whether PostgreSQL fails depends on its plan"}
}

// readsAll reports whether PostgreSQL reads every row under rel before
// it produces its first: an aggregate without GROUP BY, under filters,
// projections and sorts.
func readsAll(rel plan.Rel) bool {
	switch x := rel.(type) {
	case *plan.Project:
		return readsAll(x.Input)
	case *plan.Filter:
		return readsAll(x.Input)
	case *plan.Sort:
		return readsAll(x.Input)
	case *plan.Aggregate:
		return len(x.GroupBy) == 0 && len(x.Sets) == 0
	}
	return false
}

// unsettledError says whether err is an error PostgreSQL raises only on
// the rows it reads: a data exception (class 22) or a subquery's
// cardinality violation (21000).
func unsettledError(err error) (*types.Error, bool) {
	var te *types.Error
	if !errors.As(err, &te) {
		return nil, false
	}
	return te, strings.HasPrefix(te.Code, "22") || te.Code == "21000"
}

// guardUnread runs cut (the LIMIT's reading of its input, passing the
// rows kept to emit) and refuses an error its input raised that
// PostgreSQL may not (see above); errors of emit, on the rows kept,
// stand.
func guardUnread(cut func(emit func(*Batch) error) error, emit func(*Batch) error) error {
	var down error
	err := cut(func(b *Batch) error {
		if err := emit(b); err != nil {
			down = err
			return err
		}
		return nil
	})
	if err == nil || down != nil && errors.Is(err, down) {
		return err
	}
	if te, ok := unsettledError(err); ok {
		return limitErrorUnsettled(te)
	}
	return err
}
