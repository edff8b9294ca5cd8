package sqlfront

import (
	"fmt"
	"strings"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/wal"
)

// The catalog facts (collate.go, inherit.go) on the sql/exec path. The
// flat planner reads an inheritance parent's descendants and checks every
// text comparison against the collation PostgreSQL would use; sql/exec
// reads one table per scan and compares text as bytes. A statement
// planned for sql/exec is therefore checked here before it runs, and
// refused with 0A000 where the facts say its answer could differ:
//
//   - (vexec_inherit.go) an inheritance parent read with ONLY (the binder
//     does not tell FROM parent from FROM ONLY parent), or with a
//     descendant that is not followed;
//   - any ordering of text (ORDER BY, <, <=, >, >=, BETWEEN, min/max,
//     greatest/least, ANY/ALL with those) when the database default or a
//     text column of a table the statement reads has a collation that is
//     not byte order;
//   - any statement over a table with a text column under a
//     nondeterministic collation (even equality differs there).
//
// The collation check is coarser than the flat planner's (it does not
// derive which column an operand reads): a statement may be refused that
// PostgreSQL answers in byte order, never answered in another order.

// vecFactsCheck refuses q when the catalog facts of the tables it reads
// say sql/exec could answer differently from PostgreSQL.
func (pl *planner) vecFactsCheck(q *lplan.Query, tables map[*lplan.TableDef]*Table) error {
	var coll, turkic *wal.Collation
	nondet := false
	note := func(c wal.Collation) {
		if turkicLocale(c.Locale) {
			turkic = &c
		}
		switch c.Order {
		case wal.CollNondeterministic:
			nondet = true
			coll = &c
		case wal.CollOther:
			if coll == nil {
				coll = &c
			}
		}
	}
	if d := pl.vecDefaultCollation(tables); d.Order != wal.CollUnknown {
		note(d)
	}
	for _, t := range tables {
		for _, c := range t.Columns {
			if isTextType(c.TypeOID) && c.TypeOID != oidName && c.TypeOID != oidCharType && c.Collation.Name != "" && c.Collation.Name != "default" {
				note(c.Collation)
			}
		}
	}
	if coll == nil {
		return nil
	}
	if nondet {
		return unsupported(-1, fmt.Sprintf("comparing text under the nondeterministic collation %q (%s)", coll.Name, coll.Locale)).
			hint(`sidecar compares text in byte order (as COLLATE "C")`)
	}
	caseMapping := false
	if textOrdering(q.Plan, q.MD, &caseMapping) {
		return unsupported(-1, fmt.Sprintf("ordering text under the collation %q (%s) with joins, subqueries, CTEs or set operations", coll.Name, coll.Locale)).
			hint(`sidecar compares text in byte order (as COLLATE "C")`)
	}
	if caseMapping && turkic != nil {
		return unsupported(-1, fmt.Sprintf("lower/upper/initcap under the collation %q (%s)", turkic.Name, turkic.Locale)).
			hint(`sidecar maps case as the C locale does: write COLLATE "C" to get that`)
	}
	return nil
}

// vecDefaultCollation is the database's default collation as the facts
// of the statement's tables (or, without tables, of any followed table)
// record it; zero when none was read.
func (pl *planner) vecDefaultCollation(tables map[*lplan.TableDef]*Table) wal.Collation {
	for _, t := range tables {
		if t.Facts != nil {
			return t.Facts.Default
		}
	}
	for _, t := range pl.src.Tables() {
		if t.Facts != nil {
			return t.Facts.Default
		}
	}
	return wal.Collation{}
}

// collatable reports whether values of type t compare under a collation
// sidecar must check (name compares as "C", "char" has none).
func collatable(t lplan.Type) bool {
	if lplan.IsArray(t) {
		return collatable(lplan.ElemType(t)) // text[] compares its elements under the collation
	}
	// jsonb orders its strings under the database's default collation
	// (compareJsonbScalarValue), so ordering jsonb is ordering text.
	return isTextType(t.OID) && t.OID != oidName && t.OID != oidCharType || t.OID == lplan.Unknown || t.OID == lplan.JSONB
}

// textOrdering reports whether r (subqueries and CTEs included) orders
// text anywhere: a sort key, min/max, an ordering comparison, or
// greatest/least of a collatable type.
//
// caseMapping is set when the walk meets lower, upper or initcap (their
// ASCII mapping differs under Turkish and Azeri locales).
func textOrdering(r lplan.Rel, md *lplan.Metadata, caseMapping *bool) bool {
	found := false
	var visitRel func(lplan.Rel)
	var visit func(lplan.Scalar)
	visit = func(s lplan.Scalar) {
		lplan.Walk(s, func(x lplan.Scalar) bool {
			switch e := x.(type) {
			case *lplan.Op:
				switch e.Op {
				case "<", "<=", ">", ">=":
					for _, a := range e.Args {
						if collatable(a.Type()) {
							found = true
						}
					}
				}
			case *lplan.Func:
				switch strings.ToLower(e.Name) {
				case "lower", "upper", "initcap":
					*caseMapping = true
				case "greatest", "least":
					if collatable(e.T) {
						found = true
					}
				}
				if op, _, ok := lplan.ArrayCmp(e); ok && op != "=" && op != "<>" && collatable(e.Args[0].Type()) {
					found = true // text < ANY (array)
				}
			case *lplan.Subquery:
				switch e.Op {
				case "<", "<=", ">", ">=":
					if e.Left != nil && collatable(e.Left.Type()) {
						found = true
					}
				}
				if e.Plan != nil {
					visitRel(e.Plan)
				}
			}
			return !found
		})
	}
	visitRel = func(r lplan.Rel) {
		if r == nil || found {
			return
		}
		switch x := r.(type) {
		case *lplan.Scan:
			visit(x.Filter)
		case *lplan.Filter:
			visit(x.Pred)
		case *lplan.Project:
			for _, e := range x.Exprs {
				visit(e)
			}
		case *lplan.Join:
			visit(x.On)
		case *lplan.Aggregate:
			for _, a := range x.Aggs {
				switch strings.ToLower(a.Name) {
				case "min", "max":
					for _, arg := range a.Args {
						if collatable(arg.Type()) {
							found = true
						}
					}
				}
				for i, arg := range a.Args {
					if i >= len(a.Args)-len(a.Order) && collatable(arg.Type()) {
						found = true // array_agg/json_agg(… ORDER BY text), percentile_disc/mode WITHIN GROUP (ORDER BY text)
					}
					if a.Distinct && a.Name == "string_agg" && collatable(arg.Type()) {
						found = true // string_agg(DISTINCT …) sorts its values
					}
					visit(arg)
				}
				visit(a.Filter)
			}
		case *lplan.Sort:
			for _, k := range x.Keys {
				if collatable(md.Column(k.Col).Type) {
					found = true
				}
			}
		case *lplan.Window: // window ORDER BY and min/max over a frame (sql/plan/window.go)
			for _, k := range x.Order {
				if collatable(md.Column(k.Col).Type) {
					found = true
				}
			}
			for _, f := range x.Funcs {
				if (f.Name == "min" || f.Name == "max") && collatable(f.T) {
					found = true
				}
			}
		case *lplan.Limit:
			visit(x.Count)
			visit(x.Offset)
		case *lplan.Values:
			for _, row := range x.Rows {
				for _, e := range row {
					visit(e)
				}
			}
		case *lplan.FuncScan:
			for _, e := range x.Args {
				visit(e)
			}
		}
		for _, in := range r.Inputs() {
			visitRel(in)
		}
	}
	visitRel(r)
	return found
}

// factsRefusal reports whether the flat planner refused a statement for
// what the catalog facts say (a collation, an inheritance parent's
// descendants, a partitioned table followed as its partitions), not for
// a construct it lacks: such a statement is not planned again for
// sql/exec, whose answer could only be the one the facts forbid.
func factsRefusal(fe *Error) bool {
	return strings.Contains(fe.Msg, "collation") || strings.Contains(fe.Msg, "descendants") || strings.Contains(fe.Msg, "partitioned table")
}

// turkicLocale says whether a collation's locale ("provider locale") is
// Turkish or Azeri, where lower('I') is 'ı' and upper('i') is 'İ'.
func turkicLocale(locale string) bool {
	_, loc, _ := strings.Cut(locale, " ")
	loc = strings.ToLower(loc)
	return strings.HasPrefix(loc, "tr") || strings.HasPrefix(loc, "az")
}
