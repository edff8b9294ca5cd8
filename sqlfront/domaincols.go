package sqlfront

import (
	"fmt"
	"slices"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// Columns of a domain type. PostgreSQL describes such a column on the
// wire by its base type and typmod (printtup's getBaseTypeAndTypmod,
// through domains over domains: a domain over varchar(10) is varchar
// with typmod 14, a domain over an enum is the enum), and evaluates its
// values as the base type's: operators, functions, casts and aggregates
// resolve on the base type, and the domain's CHECK never matters on
// reads. The copy and the catalog poll read each column's base type and
// typmod (wal.ColumnType.BaseType/BaseMod, mirror section 't'); where
// they were read, the SQL port plans such a column as its base type on
// sql/exec: `p + 1`, `p::int`, `WHERE p > 3`, `ORDER BY p`, `sum(p)`,
// `upper(d)` and joins answer as PostgreSQL, and RowDescription and
// ParameterDescription name the base type. The catalog (pg_attribute,
// information_schema, psql's \d) keeps describing the column by its
// domain: only the values' type changes.
//
// What PostgreSQL's answer types by the domain itself is refused with
// 0A000: pg_typeof of a value (its name is the domain's), and an array
// built from such values (ARRAY[p], array_agg(p): PostgreSQL's type is
// the domain's array type, posint[]), refused when its element type is
// a domain column's base type and it reads a column. A cast to the
// domain is not planned (the binder does not know the type's name).
//
// The flat planner plans a domain column by its base type when that is
// a type whose values print alike under every session setting (int,
// numeric, text, …) and the column is not a key column; a statement
// reading another (a domain over date, timestamptz, money; a domain
// key) goes to sql/exec, which does not scan a type the catalog does
// not know (an enum): a statement reading both is refused. The key of such a table is not
// given to sql/exec: its encoding orders the domain column by its text
// (rowenc keys a type it does not know as bytes), not by the base type.

// domainBase is the type sidecar plans column i of t by when it is of a
// domain type whose base type and typmod the facts read: ok is false
// for any other column (its own type stands).
func domainBase(t *Table, i int) (base lplan.Type, ok bool) {
	if t == nil || i >= len(t.Columns) {
		return lplan.Type{}, false
	}
	var ct wal.ColumnType
	switch {
	case t.Facts != nil && len(t.Facts.ColumnTypes) == len(t.Columns):
		ct = t.Facts.ColumnTypes[i]
	case len(t.assumed) == len(t.Columns):
		ct = t.assumed[i] // assumeColumnTypes
	default:
		return lplan.Type{}, false
	}
	c := t.Columns[i]
	if ct.BaseType == 0 || ct.BaseType == c.TypeOID || types.Known(c.TypeOID) {
		return lplan.Type{}, false
	}
	return lplan.Type{OID: ct.BaseType, Mod: ct.BaseMod}, true
}

// assumeColumnTypes gives a table whose relation record lacks its
// columns' types (written before mirror section 't'; an AS OF version
// before the next resync) those of the same type OIDs in the tables at
// HEAD: a domain's base type and typmod are fixed when it is created
// (ALTER DOMAIN changes neither), so the domain's OID names them at any
// version. Without them such a column was described by the domain's OID,
// which PostgreSQL never sends. A type no column at HEAD has stays
// unread (its uses are refused as unknowntypes.go refuses them).
func assumeColumnTypes(t *Table, current []Table) {
	if t.Facts != nil && len(t.Facts.ColumnTypes) == len(t.Columns) {
		return
	}
	byOID := map[uint32]wal.ColumnType{}
	for _, c := range current {
		if c.Facts == nil || len(c.Facts.ColumnTypes) != len(c.Columns) {
			continue
		}
		for i, col := range c.Columns {
			if ct := c.Facts.ColumnTypes[i]; ct.BaseType != 0 && !types.Known(col.TypeOID) {
				byOID[col.TypeOID] = ct
			}
		}
	}
	var assumed []wal.ColumnType
	for i, c := range t.Columns {
		if ct, ok := byOID[c.TypeOID]; ok && ct.BaseType != c.TypeOID {
			if assumed == nil {
				assumed = make([]wal.ColumnType, len(t.Columns))
			}
			assumed[i] = ct
		}
	}
	if assumed == nil {
		return
	}
	t.assumed = assumed
	t.Columns = slices.Clone(t.Columns) // shared with the cached Table
	setDomainBases(t)
}

// planColumnType is the type sidecar plans column i of t by on
// sql/exec: its domain's base type, else its own.
func planColumnType(t *Table, i int) lplan.Type {
	if b, ok := domainBase(t, i); ok {
		return b
	}
	c := t.Columns[i]
	return lplan.Type{OID: c.TypeOID, Mod: c.TypeMod}
}

// valueColumn is column i of t as a column of values named name (a
// virtual relation's, sidecar.diff's): a domain column is described by
// its base type and typmod, as PostgreSQL describes a value of it, not by
// the domain's OID.
func valueColumn(t *Table, i int, name string) Column {
	c := t.Columns[i]
	typ, mod := c.TypeOID, c.TypeMod
	if b, ok := domainBase(t, i); ok {
		typ, mod = b.OID, b.Mod
	}
	return Column{Name: name, TypeOID: typ, TypeMod: mod}
}

// hasDomainColumn says whether some column of t is planned by its
// domain's base type.
func hasDomainColumn(t *Table) bool {
	for i := range t.Columns {
		if _, ok := domainBase(t, i); ok {
			return true
		}
	}
	return false
}

// domainKeyed says whether a key column of t is planned by its
// domain's base type (its key encoding is not that type's order).
func domainKeyed(t *Table) bool {
	for _, k := range t.KeyCols {
		if _, ok := domainBase(t, k); ok {
			return true
		}
	}
	return false
}

// flatColumnType is the type the flat planner gives column i of t, and
// whether it is a domain column it does not plan (one over a base type
// the catalog knows: sql/exec plans it by that type). A domain over a
// base type the catalog does not know (an enum, a range) is carried as
// that type's text by both planners, described by the base type; only
// the flat planner reads such columns.
func flatColumnType(t *Table, i int) (typ uint32, mod int32, domain bool) {
	c := t.Columns[i]
	if b, ok := domainBase(t, i); ok {
		if !types.Known(b.OID) || flatBases[b.OID] && !slices.Contains(t.KeyCols, i) {
			return b.OID, b.Mod, false
		}
		return c.TypeOID, c.TypeMod, true
	}
	return c.TypeOID, c.TypeMod, false
}

// flatBases are the base types the flat planner plans a domain column
// by: types whose values it reads and prints whatever the session's
// settings (a date or a time prints under DateStyle and TimeZone, money
// under lc_monetary: the statement-level routing that sends those to
// sql/exec looks at the columns' own types). A domain key column is
// left to sql/exec too: the flat planner's key paths order and seek by
// the key encoding, the domain's text.
var flatBases = map[uint32]bool{
	oidInt2: true, oidInt4: true, oidInt8: true, oidNumeric: true, oidFloat4: true, oidFloat8: true, oidBool: true,
	oidText: true, oidVarchar: true, oidBpchar: true, oidUUID: true,
}

// setDomainBases notes in t's columns the base types of its domain
// columns (Column.Base) the type catalog knows.
func setDomainBases(t *Table) {
	for i := range t.Columns {
		if b, ok := domainBase(t, i); ok && types.Known(b.OID) {
			t.Columns[i].Base = b.OID
		}
	}
}

// domainFlatRefusal sends a statement reading a domain column the flat
// planner does not plan to sql/exec.
func domainFlatRefusal(pos int) error {
	return unsupported(pos, "a column of a domain type on the flat planner")
}

// domainBases are the planning types a domain column has in a followed
// table's facts, by the domain's OID (a view column of a domain type is
// planned as the table column it reads).
func (pl *planner) domainBases() map[uint32]lplan.Type {
	if pl.domains != nil {
		return pl.domains
	}
	m := map[uint32]lplan.Type{}
	for _, t := range pl.src.Tables() {
		for i, c := range t.Columns {
			if b, ok := domainBase(&t, i); ok {
				m[c.TypeOID] = b
			}
		}
	}
	pl.domains = m
	return m
}

// domainTypeRefusal refuses q when it reads a domain column and takes
// pg_typeof of a value or builds an array of a domain column's base
// type from a column (see above).
func (c *vecCatalog) domainTypeRefusal(q *lplan.Query) error {
	bases := map[uint32]string{} // base type OID → a domain column of it, for the message
	var scans func(r lplan.Rel)
	scans = func(r lplan.Rel) {
		if s, ok := r.(*lplan.Scan); ok {
			if t := c.tables[s.Table]; t != nil {
				for _, o := range s.Ords {
					if b, ok := domainBase(t, o); ok {
						bases[b.OID] = t.Name + "." + t.Columns[o].Name
					}
				}
			}
		}
		for _, e := range lplan.ExprsOf(r) {
			lplan.Walk(e, func(x lplan.Scalar) bool {
				if sq, ok := x.(*lplan.Subquery); ok {
					scans(sq.Plan)
				}
				return true
			})
		}
		for _, in := range r.Inputs() {
			scans(in)
		}
	}
	scans(q.Plan)
	if len(bases) == 0 {
		return nil
	}
	refuse := func(what string) error {
		for _, col := range bases {
			return unsupported(-1, fmt.Sprintf("%s over a statement reading the domain column %s (PostgreSQL types it by the domain, sidecar by its base type)", what, col))
		}
		return nil
	}
	readsColumn := func(s lplan.Scalar) bool {
		found := false
		lplan.Walk(s, func(x lplan.Scalar) bool {
			switch x.(type) {
			case *lplan.ColRef, *lplan.Subquery:
				found = true
			}
			return !found
		})
		return found
	}
	arrayOfBase := func(t lplan.Type) bool {
		if !lplan.IsArray(t) {
			return false
		}
		_, ok := bases[lplan.ElemType(t).OID]
		return ok
	}
	var err error
	visit := func(x lplan.Scalar) bool {
		switch y := x.(type) {
		case *lplan.Func:
			if y.Name == "pg_typeof" && readsColumn(y) {
				err = refuse("pg_typeof of a value")
			} else if arrayOfBase(y.T) && readsColumn(y) {
				err = refuse("an array built from values (" + y.Name + ")")
			}
		case *lplan.Subquery:
			if y.Kind == lplan.SubArray && arrayOfBase(y.T) {
				err = refuse("ARRAY(subquery)")
			}
		}
		return err == nil
	}
	var walk func(r lplan.Rel)
	walk = func(r lplan.Rel) {
		exprs := lplan.ExprsOf(r)
		switch x := r.(type) {
		case *lplan.Aggregate:
			for _, a := range x.Aggs {
				if arrayOfBase(a.T) && len(a.Args) > 0 && err == nil {
					err = refuse("an array built from values (" + a.Name + ")")
				}
				exprs = append(exprs, a.Filter) // ExprsOf has the arguments
			}
		case *lplan.Window:
			for _, f := range x.Funcs {
				if arrayOfBase(f.T) && len(f.Args) > 0 && err == nil {
					err = refuse("an array built from values (" + f.Name + ")")
				}
			}
		}
		for _, e := range exprs {
			if e != nil && err == nil {
				lplan.Walk(e, func(s lplan.Scalar) bool {
					if sq, ok := s.(*lplan.Subquery); ok && err == nil {
						walk(sq.Plan)
					}
					return visit(s)
				})
			}
		}
		for _, in := range r.Inputs() {
			if err == nil {
				walk(in)
			}
		}
	}
	walk(q.Plan)
	return err
}
