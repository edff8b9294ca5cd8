package plan

// scope is the names visible where an expression is bound: the FROM
// items of one query level, and the enclosing levels through parent
// (their columns are correlated references).
type scope struct {
	parent *scope
	items  []*item
	// outer collects the columns of enclosing levels this level (and the
	// levels inside it) referred to: a subquery's correlation.
	outer ColSet
	// subCtx: on the scope between a subquery in an expression and the
	// scope it is bound in, the context of that expression (where an
	// aggregate of the enclosing query's columns goes: outeragg.go).
	subCtx *exprCtx
}

// item is one FROM item: a table, a subquery, a CTE reference or a join.
type item struct {
	alias string // qualifies its columns ("" : a join without alias)
	cols  []scopeCol
	// unq are the columns an unqualified name finds in it, star the ones
	// `*` expands to, in order (a join: USING columns first, then each
	// side's others).
	unq, star []scopeCol
	sub       []*item // the items of an unaliased join, still qualifiable
	// table: a table of the catalog (its whole-row value is of its
	// composite type); nullable: on the padded side of an outer join
	// (its whole-row value is NULL in a padded row). record.go.
	table, nullable bool
	// marker is a column of the item that a strict comparison in the
	// padding join's condition reads: NULL exactly in padded rows (0:
	// none known).
	marker ColumnID
	// system are a table's system columns the catalog has (ColumnDef.
	// System, last in its columns): found by name only.
	system []scopeCol
	// rowNames are the field names of a table's whole-row value, one per
	// column of cols: the table's own column names, which column aliases
	// do not change (its value is of the table's composite type:
	// rowtypes.sql `row_to_json(i) FROM int8_tbl i(x, y)` shows q1, q2).
	// nil: the columns' names. aliasedView: a view renamed by column
	// aliases, whose type's names are not kept: its whole row is refused.
	rowNames    []string
	aliasedView bool
}

// scopeCol is a named column.
type scopeCol struct {
	name string
	id   ColumnID
	t    Type
}

// newItem is a FROM item whose columns are all visible and expanded.
func newItem(alias string, cols []scopeCol) *item {
	return &item{alias: alias, cols: cols, unq: cols, star: cols}
}

// find returns the items qualified by alias, inside joins too.
func (it *item) find(alias string, out []*item) []*item {
	if it.alias != "" {
		if it.alias == alias {
			out = append(out, it)
		}
		return out
	}
	for _, s := range it.sub {
		out = s.find(alias, out)
	}
	return out
}

// lookup resolves an unqualified (table == "") or qualified column name,
// in this level then the enclosing ones; depth is how many levels out it
// was found.
func (s *scope) lookup(table, name string, loc int32) (scopeCol, int, error) {
	for sc, depth := s, 0; sc != nil; sc, depth = sc.parent, depth+1 {
		c, found, err := sc.lookupHere(table, name, loc)
		if err != nil {
			return scopeCol{}, 0, err
		}
		if found {
			for in := s; in != sc; in = in.parent {
				if depth > 0 {
					in.outer.Add(c.id)
				}
			}
			return c, depth, nil
		}
	}
	if table != "" {
		if !s.hasAlias(table) {
			return scopeCol{}, 0, errorf(CodeUndefinedTable, "missing FROM-clause entry for table %q", table).at(loc)
		}
		if err := s.systemColumn(table, name, loc); err != nil {
			return scopeCol{}, 0, err
		}
		return scopeCol{}, 0, errorf(CodeUndefinedColumn, "column %s.%s does not exist", table, name).at(loc)
	}
	if err := s.systemColumn("", name, loc); err != nil {
		return scopeCol{}, 0, err
	}
	return scopeCol{}, 0, errorf(CodeUndefinedColumn, "column %q does not exist", name).at(loc)
}

// systemColumn refuses a system column (tableoid, ctid, xmin, …) of a
// table in scope with 0A000: PostgreSQL has it (psql's \dd reads
// pg_class.tableoid), sidecar does not keep it — 42703 would say it does
// not exist. Nil when no table item qualified by table ("": any) is in
// scope.
func (s *scope) systemColumn(table, name string, loc int32) error {
	switch name {
	case "tableoid", "ctid", "xmin", "xmax", "cmin", "cmax":
	default:
		return nil
	}
	for sc := s; sc != nil; sc = sc.parent {
		var its []*item
		for _, it := range sc.items {
			if table == "" {
				its = append(its, it.tables(nil)...)
			} else {
				its = it.find(table, its)
			}
		}
		for _, it := range its {
			if it.table {
				return errorf(CodeFeatureNotSupported, "system column %s (sidecar does not keep PostgreSQL's system columns)", name).at(loc)
			}
		}
	}
	return nil
}

// tables are it's table items, inside unaliased joins too.
func (it *item) tables(out []*item) []*item {
	if it.table {
		return append(out, it)
	}
	for _, s := range it.sub {
		out = s.tables(out)
	}
	return out
}

func (s *scope) hasAlias(table string) bool {
	for sc := s; sc != nil; sc = sc.parent {
		for _, it := range sc.items {
			if len(it.find(table, nil)) > 0 {
				return true
			}
		}
	}
	return false
}

func (s *scope) lookupHere(table, name string, loc int32) (scopeCol, bool, error) {
	var hits []scopeCol
	if table == "" {
		for _, it := range s.items {
			for _, c := range it.unq {
				if c.name == name {
					hits = append(hits, c)
				}
			}
			for _, c := range it.system {
				if c.name == name {
					hits = append(hits, c)
				}
			}
		}
	} else {
		var its []*item
		for _, it := range s.items {
			its = it.find(table, its)
		}
		if len(its) > 1 {
			return scopeCol{}, false, errorf(CodeAmbiguousColumn, "table reference %q is ambiguous", table).at(loc)
		}
		if len(its) == 1 {
			for _, cols := range [][]scopeCol{its[0].cols, its[0].system} {
				for _, c := range cols {
					if c.name == name {
						hits = append(hits, c)
					}
				}
			}
		}
	}
	switch len(hits) {
	case 0:
		return scopeCol{}, false, nil
	case 1:
		return hits[0], true, nil
	}
	return scopeCol{}, false, errorf(CodeAmbiguousColumn, "column reference %q is ambiguous", name).at(loc)
}

// star is the columns `*` expands to at this level.
func (s *scope) star() []scopeCol {
	var out []scopeCol
	for _, it := range s.items {
		out = append(out, it.star...)
	}
	return out
}

// starOf is the columns `table.*` expands to.
func (s *scope) starOf(table string, loc int32) ([]scopeCol, error) {
	for sc := s; sc != nil; sc = sc.parent {
		var its []*item
		for _, it := range sc.items {
			its = it.find(table, its)
		}
		if len(its) > 1 {
			return nil, errorf(CodeAmbiguousColumn, "table reference %q is ambiguous", table).at(loc)
		}
		if len(its) == 1 {
			return its[0].cols, nil
		}
	}
	return nil, errorf(CodeUndefinedTable, "missing FROM-clause entry for table %q", table).at(loc)
}
