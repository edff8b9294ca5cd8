package sqlfront

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/types"
)

// money's text depends on lc_monetary: cash_out prints "$1,234.56"
// under C, and "1.234,56 €" under de_DE. The type catalog reads and
// prints money as lc_monetary C does (types/money.go), which en_US and
// C.UTF-8 print alike (checked against PostgreSQL). A session whose
// lc_monetary is another — the followed server's default (read with the
// session defaults) or a SET — refuses every statement reading a money
// column or naming the type (0A000): the stored text was printed in the
// server's locale, which the catalog would misread, and the answer would
// be printed in C's. The choice is the follow-the-server one limited to
// the locales whose money text is C's, never another answer.

// moneyLocales are the lc_monetary values whose money text is C's.
var moneyLocales = map[string]bool{"c": true, "posix": true, "c.utf-8": true, "c.utf8": true, "en_us": true, "en_us.utf-8": true, "en_us.utf8": true}

// moneyLocaleOK says whether money prints under lc_monetary v as
// sidecar prints it ("" is sidecar's default, C).
func moneyLocaleOK(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return v == "" || moneyLocales[v]
}

// moneyLocaleRefusal refuses stmt under an lc_monetary whose money text
// is not C's when it reads a table with a money column or names money.
func (pl *planner) moneyLocaleRefusal(stmt *pg.Node) error {
	if pl.sess == nil {
		return nil
	}
	lc := pl.sess.settings["lc_monetary"]
	if moneyLocaleOK(lc) {
		return nil
	}
	refusal := unsupported(-1, "money under lc_monetary "+strconv.Quote(lc)).
		hint("sidecar reads and prints money as lc_monetary C (and en_US) do; SET lc_monetary = 'C'")
	if strings.Contains(strings.ToLower(pl.stmtText), "money") {
		return refusal
	}
	return eachRangeVar(stmt, func(rv *pg.RangeVar) error { // partroot_vec.go
		t, err := pl.table(rv, pl.asOf[int(rv.Location)])
		if err != nil || t == nil {
			return nil // a CTE's name, or a table the planners report
		}
		for i := range t.Columns {
			if typ := planColumnType(t, i).OID; typ == uint32(types.Money) || typ == uint32(types.ArrayOf(types.Money)) { // domaincols.go: a domain over money too
				return refusal
			}
		}
		return nil
	})
}
