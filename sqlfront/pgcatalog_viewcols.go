package sqlfront

import (
	"strconv"
	"strings"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// The columns of the views pg_class lists (pgcatalog_views.go) in
// pg_attribute and their defaults in pg_attrdef, as PostgreSQL has them:
// a view's columns are attnum 1…n (a view has no system columns and
// never drops a column: CREATE OR REPLACE VIEW only appends), never NOT
// NULL, identity or generated, attndims 0 (DefineVirtualRelation's
// column definitions carry no array bounds), local; their collation
// and defaults (ALTER VIEW … ALTER COLUMN … SET DEFAULT) as the copy
// and the catalog poll read them (wal.ViewColumn). A view whose
// columns' facts were not read (a record written before) keeps its
// columns' names and types; its collations and atthasdef are unknown
// and its pg_attrdef row reads unknown (which columns have a default is
// not known): a statement reading them is refused.

// listedView is a view pg_class lists and whether its columns' facts
// were read.
type listedView struct {
	v        *wal.ViewFacts
	colsRead bool
}

// listedViewColumns returns listedViews' views with whether the facts
// that listed them read their columns' facts.
func listedViewColumns(tables []Table, ns map[string]uint32) []listedView {
	var out []listedView
	read := map[*wal.ViewFacts]bool{}
	for i := range tables {
		if s := schemaFactsOf(&tables[i]); s != nil && s.ViewsRead {
			for j := range s.Views {
				read[&s.Views[j]] = s.ViewColumnsRead
			}
		}
	}
	for _, v := range listedViews(tables, ns) {
		out = append(out, listedView{v: v, colsRead: read[v]})
	}
	return out
}

// viewAttributeRows are the views' columns' pg_attribute rows (in
// pg_attribute's base layout, pgcatalog.go).
func viewAttributeRows(cx *pgCatCtx, ns map[string]uint32) [][]*string {
	var out [][]*string
	u := pgUnknown
	for _, lv := range listedViewColumns(cx.tables, ns) {
		for i, c := range lv.v.Columns {
			length := u
			if ty, ok := types.Lookup(c.TypeOID); ok {
				length = iv(int64(ty.Len))
			}
			hasDef, coll := u, u
			if lv.colsRead {
				hasDef, coll = bv(c.HasDefault), u32(c.Collation)
			}
			out = append(out, []*string{u32(lv.v.OID), sv(c.Name), u32(c.TypeOID), u, length, iv(int64(i + 1)), sv("0"), sv("-1"), iv(int64(c.TypeMod)),
				u, u, u, u, sv("f"), hasDef, sv("f"), sv(""), sv(""), sv("f"), sv("t"), sv("0"), coll, u, u, u, u})
		}
	}
	return out
}

// viewAttrdefRows are the views' columns' pg_attrdef rows.
func viewAttrdefRows(cx *pgCatCtx, ns map[string]uint32) [][]*string {
	var out [][]*string
	for _, lv := range listedViewColumns(cx.tables, ns) {
		if !lv.colsRead {
			out = append(out, []*string{pgUnknown, u32(lv.v.OID), pgUnknown, pgUnknown})
			continue
		}
		for i, c := range lv.v.Columns {
			if c.HasDefault {
				out = append(out, []*string{pgUnknown, u32(lv.v.OID), iv(int64(i + 1)), sv(c.Default + nodeTreeSep + c.DefaultPretty)})
			}
		}
	}
	return out
}

// attrRelOIDs says whether every value of vals is the OID of a relation
// whose pg_attribute rows sidecar lists — a followed table or a listed
// view —: a constant, a proven scan's column holding only followed
// tables' OIDs (tableKey), pg_attrdef.adrelid (a table's or a view's),
// or pg_class.oid of a scan whose conditions restrict it to tables and
// views (classAttrRels).
func (r *reach) attrRelOIDs(vals []lplan.Scalar) bool {
	return r.allVals(vals, 0, r.attrRelOID, func(src colSource) bool {
		if src.rel.name == "pg_class" && src.name == "oid" && r.classAttrRels(src.scan) {
			return true
		}
		return src.rel.name == "pg_attrdef" && src.name == "adrelid" || r.tableKey(src)
	})
}

// attrRelOID says whether k is the OID of a followed table, a listed
// view or a relation whose columns were read (pgcatalog_partlists_cols.go).
func (r *reach) attrRelOID(k string) bool {
	n, err := strconv.ParseUint(strings.TrimSpace(k), 10, 32)
	return err == nil && (r.tables[uint32(n)] || r.views[uint32(n)] || r.attr.oids[uint32(n)])
}

// classAttrRels says whether a pg_class scan's rows are restricted to
// followed tables and listed views (pg_class's other rows are indexes
// and sequences, whose columns pg_attribute does not list): relkind =
// or IN constants other than 'i', 'I', 'S' and the kinds pg_class lists
// alone (reach.classOnlyKinds) but those whose columns were all read
// (reach.attr), relname = or IN names of tables and views no index or
// sequence has (or of relations whose columns were read no relation
// without has), or oid = or IN their OIDs
// (constants, or values only such OIDs define: pgjdbc's VALUES list).
func (r *reach) classAttrRels(s *lplan.Scan) bool {
	for _, cond := range r.restr[s] {
		col, other, op, ok := r.comparison(cond, s)
		if !ok || op != "=" && op != "in" || len(other) == 0 {
			continue
		}
		if col == "oid" {
			if r.allVals(other, 0, r.attrRelOID, func(src colSource) bool {
				return src.rel.name == "pg_attrdef" && src.name == "adrelid" || r.tableKey(src)
			}) {
				return true
			}
			continue
		}
		all := true
		for _, o := range other {
			k, ok := constText([]lplan.Scalar{o})
			switch col {
			case "relkind":
				// Not the kinds of relations pg_class lists alone (partitioned
				// tables above followed partitions, relations not followed:
				// pg_attribute lacks their columns).
				all = all && ok && k != "i" && k != "I" && k != "S" && (!r.classOnlyKinds[k] || r.attr.kinds[k])
			case "relname":
				all = all && ok && ((r.tableNames[k] || r.viewNames[k]) && !r.classNames[k] || r.attr.names[k])
			default:
				all = false
			}
		}
		if all {
			return true
		}
	}
	return false
}

// tableAttNDims is a followed table's column's attndims: 0 for a type
// other than an array; an array column's is the dimensions its
// declaration wrote (int[] 1, int[][] 2, 0 through a domain), which the
// copy does not read: unknown (it said 0).
func tableAttNDims(typ uint32) *string {
	if _, ok := types.Lookup(typ); ok && !types.IsArray(typ) {
		return sv("0")
	}
	return pgUnknown
}
