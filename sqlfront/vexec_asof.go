package sqlfront

import (
	"strings"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
)

// This file lets an explicit `t AS OF 'ref'` reach sql/exec: the
// statement rewrite (statement.go) records each reference's ref by the
// byte offset of its table name (pl.asOf), as for the flat path; the
// binder asks the catalog for each reference with that offset
// (lplan.LocatedCatalog), and a reference with a ref gets its own
// TableDef, read at that ref's version (resolved once per statement or
// transaction by session.versionFor, as the flat path's tables are).

// TableAt implements lplan.LocatedCatalog.
func (c *vecCatalog) TableAt(schema, name string, loc int32) *lplan.TableDef {
	ref := c.pl.asOf[int(loc)]
	if ref == "" {
		return c.Table(schema, name)
	}
	if c.catalogTable(schema, name) != nil {
		return nil // AS OF on a catalog relation: the flat planner's refusal stands
	}
	return c.tableRef(schema, name, ref)
}

// asOfPlannable says whether the statement's AS OF refs can be planned
// for sql/exec now: not `AS OF $n`, whose ref is known only at Bind
// (the session plans the statement again then, with the value).
func (pl *planner) asOfPlannable() bool {
	for _, ref := range pl.asOf {
		if strings.HasPrefix(ref, asOfParam) {
			return false
		}
	}
	return true
}
