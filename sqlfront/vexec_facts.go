package sqlfront

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sidecar-dev/sidecar/sql/exec"
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
// say sql/exec could answer differently from PostgreSQL. When its text
// is ordered under a libc locale proven to order here as on the server
// (wal.CollLibc, collate_libc.go), it returns that order for sql/exec.
func (pl *planner) vecFactsCheck(q *lplan.Query, tables map[*lplan.TableDef]*Table) (exec.TextOrder, error) {
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
		case wal.CollOther, wal.CollLibc:
			if coll == nil || coll.Order == wal.CollLibc {
				coll = &c
			}
		}
	}
	def := pl.vecDefaultCollation(tables)
	if def.Order != wal.CollUnknown {
		note(def)
	}
	explicit, err := pl.explicitCollations(q.MD, def, tables) // collate_explicit.go
	if err != nil {
		return nil, err
	}
	for _, c := range explicit {
		note(c)
	}
	for _, t := range tables {
		for i, c := range t.Columns {
			if typ := planColumnType(t, i).OID; isTextType(typ) && typ != oidName && typ != oidCharType && c.Collation.Name != "" && c.Collation.Name != "default" { // domaincols.go: a domain over text too
				note(c.Collation)
			}
		}
	}
	if coll == nil {
		return nil, nil
	}
	if nondet {
		return nil, unsupported(-1, fmt.Sprintf("comparing text under the nondeterministic collation %q (%s)", coll.Name, coll.Locale)).
			hint(`sidecar compares text in byte order (as COLLATE "C")`)
	}
	sites := orderSites{d: newCollDeriver(q.Plan, q.MD, tables, explicit), def: def}
	found := textOrdering(q.Plan, q.MD, &sites)
	if sites.caseMapping && turkic != nil {
		return nil, turkicRefusal(turkic)
	}
	if !found {
		return nil, nil
	}
	return orderUnder(coll, &sites) // collate_libc.go
}

// turkicRefusal refuses lower/upper/initcap under a Turkish or Azeri
// collation.
func turkicRefusal(c *wal.Collation) error {
	return unsupported(-1, fmt.Sprintf("lower/upper/initcap under the collation %q (%s)", c.Name, c.Locale)).
		hint(`sidecar maps case as the C locale does: write COLLATE "C" to get that`)
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

// orderSites is what textOrdering meets besides orderings sql/exec
// answers under a libc locale (sort keys, window ORDER BY, <, <=, >, >=,
// BETWEEN, min/max, greatest/least).
type orderSites struct {
	// d derives the collation each ordering uses (collate_derive.go);
	// def is the database default; used are the collations met; untold
	// says an ordering's collation could not be derived.
	d      *collDeriver
	def    wal.Collation
	used   []wal.Collation
	untold bool
	// unsupported names the first ordering of text sql/exec answers only
	// in byte order ("" when none).
	unsupported string
	// caseMapping: lower, upper or initcap (their ASCII mapping differs
	// under Turkish and Azeri locales).
	caseMapping bool
}

// at records an ordering of the values es (their collations merged).
func (s *orderSites) at(es ...lplan.Scalar) {
	var c derivedColl
	for _, e := range es {
		c = c.merge(s.d.expr(e))
	}
	s.use(c)
}

// atCol records an ordering of column id.
func (s *orderSites) atCol(id lplan.ColumnID) { s.use(s.d.col(id)) }

func (s *orderSites) use(c derivedColl) {
	coll, ok := s.d.resolve(c, s.def)
	if !ok {
		s.untold = true
		return
	}
	if !slices.Contains(s.used, coll) {
		s.used = append(s.used, coll)
	}
}

func (s *orderSites) not(what string) {
	if s.unsupported == "" {
		s.unsupported = what
	}
}

// ordered reports whether ordering values of type t orders text: a
// collatable type, or a record (whose text fields compare under the
// collation). Arrays, jsonb and records order their text in byte order
// in sql/exec, so those are noted as unsupported under a locale.
func (s *orderSites) ordered(t lplan.Type) bool {
	switch {
	case t.OID == lplan.Record:
		s.not("ordering records")
		return true
	case !collatable(t):
		return false
	case lplan.IsArray(t):
		s.not("ordering arrays of text")
	case t.OID == lplan.JSONB:
		s.not("ordering jsonb")
	}
	return true
}

// textOrdering reports whether r (subqueries and CTEs included) orders
// text anywhere: a sort key, min/max, an ordering comparison, or
// greatest/least of a collatable type.
//
// sites records what else the walk meets (orderSites).
func textOrdering(r lplan.Rel, md *lplan.Metadata, sites *orderSites) bool {
	found := false
	var visitRel func(lplan.Rel)
	var visit func(lplan.Scalar)
	visit = func(s lplan.Scalar) {
		lplan.Walk(s, func(x lplan.Scalar) bool {
			switch e := x.(type) {
			case *lplan.RowCompare:
				for _, p := range e.Pairs {
					for _, a := range p.Args {
						if sites.ordered(a.Type()) {
							found = true
							sites.not("a row comparison")
						}
					}
				}
			case *lplan.Op:
				switch e.Op {
				case "~~*", "!~~*":
					sites.caseMapping = true // ILIKE folds with lower()
				case "<", "<=", ">", ">=":
					ordered := false
					for _, a := range e.Args {
						ordered = sites.ordered(a.Type()) || ordered
					}
					if ordered {
						found = true
						sites.at(e.Args...)
					}
				}
			case *lplan.Func:
				switch strings.ToLower(e.Name) {
				case "lower", "upper", "initcap":
					sites.caseMapping = true
				case "greatest", "least":
					if sites.ordered(e.T) {
						found = true
						sites.at(e.Args...)
					}
				}
				if op, _, ok := lplan.ArrayCmp(e); ok && op != "=" && op != "<>" && sites.ordered(e.Args[0].Type()) {
					found = true // text < ANY (array)
					sites.not("an ordering comparison with ANY/ALL")
				}
			case *lplan.Subquery:
				switch e.Op {
				case "<", "<=", ">", ">=":
					if e.Left != nil && sites.ordered(e.Left.Type()) {
						found = true
						sites.not("an ordering comparison with a subquery")
					}
				}
				if e.Plan != nil {
					visitRel(e.Plan)
				}
			}
			return true
		})
	}
	visitRel = func(r lplan.Rel) {
		if r == nil {
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
						if sites.ordered(arg.Type()) {
							found = true
							sites.at(arg)
						}
					}
				}
				for i, arg := range a.Args {
					if i >= len(a.Args)-len(a.Order) && sites.ordered(arg.Type()) {
						found = true // array_agg/json_agg(… ORDER BY text), percentile_disc/mode WITHIN GROUP (ORDER BY text): sql/exec's collatedInit
						sites.at(arg)
					}
					if a.Distinct && a.Name == "string_agg" && sites.ordered(arg.Type()) {
						found = true // string_agg(DISTINCT …) sorts its values
						sites.at(arg)
					}
					visit(arg)
				}
				visit(a.Filter)
			}
		case *lplan.Sort:
			for _, k := range x.Keys {
				if sites.ordered(md.Column(k.Col).Type) {
					found = true
					sites.atCol(k.Col)
				}
			}
		case *lplan.Window: // window ORDER BY and min/max over a frame (sql/plan/window.go)
			for _, k := range x.Order {
				if sites.ordered(md.Column(k.Col).Type) {
					found = true
					sites.atCol(k.Col)
				}
			}
			for _, f := range x.Funcs {
				if (f.Name == "min" || f.Name == "max") && sites.ordered(f.T) {
					found = true
					if len(f.Args) == 1 {
						sites.atCol(f.Args[0])
					} else {
						sites.not("a window min/max")
					}
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
