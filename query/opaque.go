package query

import (
	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// The engine reads every column its type catalog does not store typed
// (heap.KindText) as text, compared bytewise: PostgreSQL's answer only for
// text, varchar and name (under a bytewise collation). uuid, inet, cidr
// and interval are compared by value instead (typedtext.go). A column of
// another such type — a user-defined range or composite, an enum, a
// domain, xml, pg_lsn, jsonb, the range types — compares and orders
// otherwise in PostgreSQL ('[1.0,2)' and '[1,2)' are one float8 range),
// so a request comparing, grouping or taking min/max/sum/avg of one is
// refused naming the column and its type; count and IS [NOT] NULL (not
// on a composite type, whose IS NULL tests each field) are answered.

// opaqueColumn is a column as opaqueRefusal sees it.
type opaqueColumn struct {
	name string
	oid  uint32 // 0: unknown (a type name the catalog does not parse)
	typ  string // the type's name, for messages
	// nullTest: IS [NOT] NULL is the value's NULL-ness (the type is
	// known not to be composite).
	nullTest bool
}

// bytewiseText says whether the engine's bytewise text comparison of a
// column of type oid is PostgreSQL's comparison of its values.
func bytewiseText(oid uint32) bool {
	return oid == types.Text || oid == types.Varchar || oid == types.Name
}

// relColumns are rel's columns for opaqueRefusal.
func relColumns(rel *wal.Relation) []opaqueColumn {
	out := make([]opaqueColumn, len(rel.Columns))
	var cts []wal.ColumnType
	if rel.Facts != nil && len(rel.Facts.ColumnTypes) == len(rel.Columns) {
		cts = rel.Facts.ColumnTypes
	}
	for i, c := range rel.Columns {
		o := opaqueColumn{name: c.Name, oid: c.TypeOID, typ: c.TypeName, nullTest: types.Known(c.TypeOID)}
		if cts != nil {
			o.typ = cts[i].Name
			o.nullTest = o.nullTest || cts[i].Kind != 0 && cts[i].Kind != 'c'
			if b := cts[i].BaseType; b != 0 && !types.Known(c.TypeOID) {
				// A domain's values compare as its base type's: one
				// compared as text (text, varchar) or by value (uuid,
				// inet) is answered as a column of that type.
				o.oid = b
			}
		}
		if o.typ == "" {
			o.typ = types.NameOf(c.TypeOID)
		}
		out[i] = o
	}
	return out
}

// headerColumns are a scan header's columns (type names only) for
// opaqueRefusal.
func headerColumns(cols []history.Column) []opaqueColumn {
	out := make([]opaqueColumn, len(cols))
	for i, c := range cols {
		o := opaqueColumn{name: c.Name, typ: c.Type}
		if t, _, err := types.Parse(c.Type); err == nil {
			o.oid, o.nullTest = t.OID, true
		}
		out[i] = o
	}
	return out
}

// opaqueRefusal is the error refusing req when it compares, groups or
// aggregates (other than count) a column whose values the engine would
// compare as text not as PostgreSQL does; nil otherwise. A column the
// engine compares by value (typedtext.go) passes in WHERE, and in GROUP
// BY where equal values print alike. The columns' types are returned
// for Plan.typeColumns.
func opaqueRefusal(req Request, schema heap.Schema, cols []opaqueColumn) (colOIDs, error) {
	check := func(name, what string, nullTest bool) error {
		for i, c := range cols {
			if c.name != name || i >= len(schema.Columns) || schema.Columns[i].Kind != heap.KindText || bytewiseText(c.oid) {
				continue
			}
			if nullTest && c.nullTest {
				return nil
			}
			if typed, _ := valueOrder(c.oid); typed && what == "where" || what == "group by" && valueGroups(c.oid) {
				return nil
			}
			return badf("%s: column %q is of type %s, which query compares as text, not as PostgreSQL does; only count and IS [NOT] NULL are answered on it", what, name, c.typ)
		}
		return nil
	}
	for _, g := range req.GroupBy {
		if err := check(g, "group by", false); err != nil {
			return nil, err
		}
	}
	for _, a := range req.Aggs {
		if a.Col != "" && a.Func != "count" {
			if err := check(a.Col, a.Name(), false); err != nil {
				return nil, err
			}
		}
	}
	var walk func(e *Expr) error
	walk = func(e *Expr) error {
		if e == nil {
			return nil
		}
		for _, a := range e.Args {
			if err := walk(a); err != nil {
				return err
			}
		}
		if e.Col == "" {
			return nil
		}
		return check(e.Col, "where", e.Op == "is_null" || e.Op == "is_not_null")
	}
	if err := walk(req.Where); err != nil {
		return nil, err
	}
	oids := colOIDs{}
	for i, c := range cols {
		if i < len(schema.Columns) && schema.Columns[i].Kind == heap.KindText {
			if typed, _ := valueOrder(c.oid); typed {
				oids[c.name] = c.oid
			}
		}
	}
	return oids, nil
}
