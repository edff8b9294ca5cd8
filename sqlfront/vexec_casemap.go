package sqlfront

import (
	"fmt"
	"strings"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/wal"
)

// The case mapping sql/exec uses for lower, upper, initcap and ILIKE
// (builtin.Context.Case): PostgreSQL maps case under the operand's
// collation's LC_CTYPE. sql/exec takes one mapping for the statement, so
// it gets one only when every collation a text value of the statement
// can carry maps alike: the database default, the non-default
// collations of the text columns of the tables read, and "C" when a
// value of type name appears (name's collation, which a cast to text
// keeps). C and POSIX (libc, and the builtin provider's C) map ASCII
// letters only (builtin.CaseC); a glibc UTF-8 locale of the verified
// glibc maps as builtin.CaseLibc. Otherwise (ICU, C.UTF-8, another
// glibc, collations that map differently) the mapping is not known and
// sql/exec refuses non-ASCII text there, as before.

// vecCaseMap is the statement's case mapping, nil when not one known.
func (pl *planner) vecCaseMap(q *lplan.Query, tables map[*lplan.TableDef]*Table) *builtin.CaseMap {
	def := pl.vecDefaultCollation(tables) // vexec_facts.go
	if def.Order == wal.CollUnknown {
		return nil
	}
	colls := []wal.Collation{def}
	for _, t := range tables {
		for i, c := range t.Columns {
			switch typ := planColumnType(t, i).OID; { // domaincols.go: a domain over text too
			case typ == oidName:
				colls = append(colls, nameCollation)
			case isTextType(typ) && typ != oidCharType && c.Collation.Name != "" && c.Collation.Name != "default":
				colls = append(colls, c.Collation)
			}
		}
	}
	if planHasName(q.Plan) {
		colls = append(colls, nameCollation)
	}
	explicit, err := pl.explicitCollations(q.MD, def, tables) // collate_explicit.go
	if err != nil {
		return nil
	}
	for _, c := range explicit {
		colls = append(colls, c)
	}
	var m *builtin.CaseMap
	for _, c := range colls {
		cm := caseMapOf(c)
		if cm == nil || m != nil && !m.Same(cm) {
			return nil
		}
		m = cm
	}
	return m
}

// caseMapOf is collation c's case mapping (nil: not one sidecar has).
func caseMapOf(c wal.Collation) *builtin.CaseMap {
	switch c.Locale {
	case "libc C", "libc POSIX", "builtin C":
		return builtin.CaseC
	}
	if c.Order == wal.CollLibc && strings.HasPrefix(c.Locale, "libc ") {
		return builtin.CaseLibc(strings.TrimPrefix(c.Locale, "libc "), c.Version)
	}
	return nil
}

// planHasName says whether any expression of r (its subqueries' plans
// included) has type name.
func planHasName(r lplan.Rel) bool {
	if r == nil {
		return false
	}
	found := false
	for _, e := range lplan.ExprsOf(r) {
		lplan.Walk(e, func(s lplan.Scalar) bool {
			if s.Type().OID == oidName {
				found = true
			}
			if sq, ok := s.(*lplan.Subquery); ok && planHasName(sq.Plan) {
				found = true
			}
			return !found
		})
	}
	for _, in := range r.Inputs() {
		found = found || planHasName(in)
	}
	return found
}

// flatCaseMap is the case mapping of lower/upper/initcap of arg on the
// flat path: its derived collation's (collate.go). An explicit COLLATE
// (only byte-order collations pass the planner) and a mirror without
// collation facts map as C, as before; Turkish and Azeri locales are
// refused outright (their ASCII I/i map otherwise). Where the mapping
// is not known — a collation caseMapOf does not know, or a value of type
// name in arg other than a column (current_user: collation C beside the
// default) — refuse is the 0A000 for non-ASCII text, naming the
// collation.
func (pl *planner) flatCaseMap(pos int, fn string, arg expr) (cm *builtin.CaseMap, refuse error, err error) {
	use, explicit, err := pl.deriveCollation(pos, arg)
	if err != nil {
		return nil, nil, err
	}
	if explicit || use.Order == wal.CollUnknown {
		return builtin.CaseC, nil, nil
	}
	hint := `sidecar maps case as the C locale does: write COLLATE "C" to get that`
	if turkicLocale(use.Locale) { // vexec_facts.go
		return nil, nil, unsupported(pos, fmt.Sprintf("%s under the collation %q (%s)", fn, use.Name, use.Locale)).hint(hint)
	}
	cm = caseMapOf(use)
	named := false
	walk(arg, func(x expr) {
		if _, col := x.(*colExpr); !col && x.typ() == oidName {
			named = true
		}
	})
	if named && (cm == nil || !cm.Same(builtin.CaseC)) {
		return nil, unsupported(pos, fmt.Sprintf("%s of non-ASCII text mixing a value of type name (collation \"C\") with the collation %q (%s)", fn, use.Name, use.Locale)).hint(hint), nil
	}
	if cm == nil {
		refuse = unsupported(pos, fmt.Sprintf("%s of non-ASCII text under the collation %q (%s)", fn, use.Name, use.Locale)).hint(hint)
	}
	return cm, refuse, nil
}
