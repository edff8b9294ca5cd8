package sqlfront

import (
	"strconv"

	"github.com/sidecar-dev/sidecar/wal"
)

// The columns of the relations pg_class lists and sidecar does not
// follow — the relation list's tables, partitioned tables, views,
// materialized views and foreign tables (pgcatalog_relations.go) and
// the partitioned tables above followed partitions
// (pgcatalog_partitioned.go) — as the catalog poll reads them with the
// relation list (wal.ListedColumnsFacts, facts section 'A'): their rows
// of pg_attribute, pg_attrdef and information_schema.columns are
// PostgreSQL's. A relation whose columns were not read (a record
// written before the section, more than wal.MaxListedColumns columns,
// or a column count that disagrees with relnatts) keeps its stand-in
// rows (pgcatalog_partlists.go): what may read them is refused, never
// answered with other columns (an AS OF before the section refuses as
// before).

// colsRel is a relation whose columns were read.
type colsRel struct {
	oid          uint32
	schema, name string
	kind         byte
	cols         []wal.ListedColumn // by attnum, dropped ones included
}

// listedColumns are the columns read, by relation OID (nil: not read).
func listedColumns(tables []Table) map[uint32][]wal.ListedColumn {
	l := carriedSection(tables, func(s *wal.SchemaFacts) *wal.ListedColumnsFacts { return s.ListedColumns }, (*wal.ListedColumnsFacts).Equal) // pgcatalog_extensions.go
	if l == nil || l.Columns == nil {
		return nil
	}
	out := map[uint32][]wal.ListedColumn{}
	for _, c := range l.Columns {
		out[c.Rel] = append(out[c.Rel], c)
	}
	return out
}

// columnsRead are the relations pg_class lists alone whose columns were
// read: the relation list's relations of kinds kinds (those that have
// columns: r, p, v, m, f), then the partitioned tables above followed
// partitions; known holds their OIDs.
func columnsRead(tables []Table) (out []colsRel, known map[uint32]bool) {
	known = map[uint32]bool{}
	cols := listedColumns(tables)
	if cols == nil {
		return nil, known
	}
	add := func(oid uint32, schema, name string, kind byte, natts int16) {
		c := cols[oid]
		if known[oid] || len(c) != int(natts) || len(c) > 0 && int(c[len(c)-1].Num) != len(c) {
			return // not read with the relation, or read at another time
		}
		known[oid] = true
		out = append(out, colsRel{oid: oid, schema: schema, name: name, kind: kind, cols: c})
	}
	for _, r := range listedOnlyCatRelations(tables) { // pgcatalog_relations.go
		switch r.Kind {
		case 'r', 'p', 'v', 'm', 'f':
			add(r.OID, r.schema, r.Name, r.Kind, r.Class.Natts)
		}
	}
	parts, _ := partitionedClasses(tables) // pgcatalog_partitioned.go
	for _, a := range parts {
		add(a.OID, a.Schema, a.Name, 'p', a.Natts)
	}
	return out, known
}

// columnsReadAttributeRows are those relations' pg_attribute rows (in
// pg_attribute's base layout, pgcatalog.go): a relation with storage
// or a partitioned one has the system columns a followed table has
// (heap_create_with_catalog adds them but to views and composite
// types), then its columns as read.
func columnsReadAttributeRows(cx *pgCatCtx) [][]*string {
	var out [][]*string
	u := pgUnknown
	rels, _ := columnsRead(cx.tables)
	for _, r := range rels {
		if r.kind != 'v' {
			out = append(out, systemAttributeRows(r.oid)...) // pgcatalog.go
		}
		for _, c := range r.cols {
			out = append(out, []*string{u32(r.oid), sv(c.Name), u32(c.TypeOID), u, iv(int64(c.Len)), iv(int64(c.Num)), iv(int64(c.NDims)), sv("-1"),
				iv(int64(c.TypeMod)), u, u, u, u, bv(c.NotNull), bv(c.HasDefault), u, sv(charText(c.Identity)), sv(charText(c.Generated)),
				bv(c.Dropped), bv(c.IsLocal), iv(int64(c.InhCount)), u32(c.Collation), u, u, u, u})
		}
	}
	return out
}

// columnsReadAttrdefRows are those relations' pg_attrdef rows (the
// row's own OID is not read).
func columnsReadAttrdefRows(cx *pgCatCtx) [][]*string {
	var out [][]*string
	rels, _ := columnsRead(cx.tables)
	for _, r := range rels {
		for _, c := range r.cols {
			if c.HasDefault {
				out = append(out, []*string{pgUnknown, u32(r.oid), iv(int64(c.Num)), sv(c.Default + nodeTreeSep + c.DefaultPretty)})
			}
		}
	}
	return out
}

// fixedCollations are the collations every database has under the same
// OID (pg_collation.dat): information_schema.columns names them.
var fixedCollations = map[uint32]string{950: "C", 951: "POSIX"}

// columnsReadInfoSchemaRows are information_schema.columns' rows of
// the relation of kind r, p, v or f among rels (a materialized view is
// not listed) whose schema and name are schema and name; defaults says
// whether the defaults read print the same under the session's path.
func columnsReadInfoSchemaRows(cx *pgCatCtx, ti *colTypeInfo, r colsRel, defaults bool) [][]*string {
	var out [][]*string
	db := sv(cx.db)
	for _, c := range r.cols {
		if c.Dropped {
			continue
		}
		var def, genExpr *string
		generated := "NEVER"
		expr := pgUnknown // read under search_path public (infoSchemaDefaultsKnown)
		if defaults {
			expr = sv(c.Default)
		}
		switch {
		case c.Generated != 0:
			generated, genExpr = "ALWAYS", expr
		case c.HasDefault:
			def = expr
		}
		coll, collName := c.Collation == 0 || c.Collation == 100, fixedCollations[c.Collation]
		row := []*string{db, sv(r.schema), sv(r.name), sv(c.Name), iv(int64(c.Num)), def}
		types := ti.typeColumns(Column{Name: c.Name, TypeOID: c.TypeOID, TypeMod: c.TypeMod}, c.NotNull, coll || collName != "")
		if collName != "" && types[13] == nil {
			types[13], types[14], types[15] = db, sv("pg_catalog"), sv(collName) // collation_catalog, _schema, _name
		}
		row = append(row, types...)
		num := strconv.Itoa(int(c.Num))
		row = append(row, nil, nil, nil, nil, sv(num), sv("NO"))
		row = append(row, identityColumns(c.Identity, func() []*string { return unknownRow(5) })...) // its sequence's parameters are not tied to it
		updatable := sv("YES")
		if r.kind == 'v' || r.kind == 'f' {
			updatable = pgUnknown // whether PostgreSQL (the wrapper) updates it is not decided
		}
		out = append(out, append(row, sv(generated), genExpr, updatable))
	}
	return out
}

// columnsReadInfoSchema are the information_schema.columns rows of the
// relations whose columns were read, by schema and name (a
// materialized view has none: it is not listed).
func columnsReadInfoSchema(cx *pgCatCtx) map[[2]string][][]*string {
	out := map[[2]string][][]*string{}
	rels, _ := columnsRead(cx.tables)
	if len(rels) == 0 {
		return out
	}
	ti, defaults := newColTypeInfo(cx), infoSchemaDefaultsKnown(cx)
	for _, r := range rels {
		if r.kind != 'm' {
			out[[2]string{r.schema, r.name}] = columnsReadInfoSchemaRows(cx, ti, r, defaults)
		}
	}
	return out
}

// columnsOrStandIn are the information_schema.columns rows of the
// relation whose information_schema.tables row is t: its columns when
// they were read (read: columnsReadInfoSchema), else one stand-in row
// under its schema and name.
func columnsOrStandIn(t []*string, read map[[2]string][][]*string, width int) [][]*string {
	if t[1] != pgStandIn && t[1] != nil && t[2] != nil {
		if rows, ok := read[[2]string{*t[1], *t[2]}]; ok {
			return rows
		}
	}
	if t[1] == pgStandIn {
		return [][]*string{standInRow(width)}
	}
	return [][]*string{append([]*string{t[0], t[1], t[2]}, standInRow(width-3)...)}
}

// attrRels are the relations pg_class lists alone whose pg_attribute
// rows are listed (their columns were read), for the reach proof of a
// pg_attribute scan (pgcatalog_viewcols.go).
type attrRels struct {
	oids map[uint32]bool
	// names are their names no relation without pg_attribute rows has;
	// kinds are the relkinds every relation pg_class lists alone of
	// has its columns read.
	names, kinds map[string]bool
}

// classOnlyAttrRels are the attrRels of tables' catalog; followed and
// views are the OIDs of the followed tables and listed views (which
// have pg_attribute rows).
func classOnlyAttrRels(tables []Table, followed, views map[uint32]bool) attrRels {
	rels, known := columnsRead(tables)
	a := attrRels{oids: known, names: map[string]bool{}, kinds: map[string]bool{}}
	l := relationList(tables) // pgcatalog_relations.go
	if len(rels) == 0 || l == nil || l.Relations == nil {
		return a
	}
	without := map[string]bool{} // names of relations without pg_attribute rows
	for _, x := range l.Relations {
		if !followed[x.OID] && !views[x.OID] && !known[x.OID] {
			without[x.Name] = true
		}
	}
	parts, _ := partitionedClasses(tables) // pgcatalog_partitioned.go: their indexes are in the list
	for _, p := range parts {
		if !known[p.OID] {
			without[p.Name] = true
		}
	}
	lacking := map[string]bool{} // kinds of relations pg_class lists alone without their columns
	for _, r := range listedOnlyRelations(tables) {
		if !known[r.OID] {
			lacking[charText(r.Kind)] = true
		}
	}
	for _, p := range parts {
		if !known[p.OID] {
			lacking["p"] = true
		}
	}
	for _, r := range rels {
		if !without[r.name] {
			a.names[r.name] = true
		}
		if k := charText(r.kind); !lacking[k] {
			a.kinds[k] = true
		}
	}
	return a
}
