package sqlfront

import (
	"strconv"

	"github.com/sidecar-dev/sidecar/types"
)

// Parameters in a catalog statement's proof. A condition such as
// pgjdbc's `WHERE t.oid = $1` (its type lookup by OID, for a column
// type outside its own table, interval among them) restricts the scan
// to the rows sidecar's catalog lists only for some values of $1, which
// are known at execution. The proof (reach.allVals) takes the parameter
// as it would take a constant and records the condition the constant
// would have to meet; each execution checks the bound values against
// them and refuses (0A000) when one fails, so the statement is answered
// exactly when the same statement with the value written in would be.

// paramCheck is what one parameter's value must satisfy for the proof
// that used it to hold: ok of its text.
type paramCheck struct {
	n  int // $n
	ok func(string) bool
}

// checkCatalogParams checks the bound values (sql/exec's, by position)
// against the checks the plan's proof recorded. A NULL satisfies every
// check: a comparison with NULL selects no row.
func checkCatalogParams(checks []paramCheck, params []types.Value) error {
	for _, c := range checks {
		if c.n < 1 || c.n > len(params) {
			return unsupported(-1, "this use of parameters in a catalog query")
		}
		v := params[c.n-1]
		if v == nil {
			continue
		}
		var text string
		switch x := v.(type) {
		case int64:
			text = strconv.FormatInt(x, 10)
		case string:
			text = x
		default:
			return unsupported(-1, "this use of parameters in a catalog query")
		}
		if !c.ok(text) {
			return unsupported(-1, "the value "+strconv.Quote(text)+" of $"+strconv.Itoa(c.n)+
				" in this catalog query (it can select rows of PostgreSQL's own objects, which sidecar's catalog does not list)")
		}
	}
	return nil
}
