package sqlfront

import (
	"slices"
	"strconv"

	"github.com/sidecar-dev/sidecar/wal"
)

// information_schema's constraint views on the engine: table_constraints,
// key_column_usage and constraint_column_usage, built from the followed
// tables' schema facts as PostgreSQL's views compute them over
// pg_constraint (the three-way join SQLAlchemy, Hibernate and Django
// introspection send for foreign keys was refused: the flat planner
// joins two tables). The columns are typed by the domains' base types
// and typmods (sql_identifier name, character_data varchar, yes_or_no
// varchar(3), cardinal_number int4), as PostgreSQL's RowDescription
// describes a domain and as the flat path's information_schema.columns;
// pg_typeof of them (the domain's name in PostgreSQL) is refused
// (checkReads). Like the rest of the
// catalog they list every followed table's constraints whatever the
// session's privileges (PostgreSQL lists those of tables the user owns
// or has a privilege on).
//
// The views differ by major: 14 has no table_constraints.nulls_distinct
// (pgcatalog_major.go), 18 lists NOT NULL constraints by their
// pg_constraint rows (other names) and reads conenforced: on 18, and
// when the major was not read, the views are refused. Before 18 a NOT
// NULL column is a CHECK constraint named
// <schema OID>_<table OID>_<attnum>_not_null; the attnum is not the
// column's position once a column was dropped, and sidecar does not know
// which were, so those names are unknown (refused when read).
var infoSchemaRels = []*pgRel{
	{schema: "information_schema", name: "table_constraints", refuse: infoSchemaMajor,
		cols: pgc("constraint_catalog name, constraint_schema name, constraint_name name, table_catalog name, table_schema name, table_name name, " +
			"constraint_type varchar, is_deferrable yes_or_no, initially_deferred yes_or_no, enforced yes_or_no, nulls_distinct yes_or_no"),
		rows: func(cx *pgCatCtx) [][]*string {
			return constraintTables(cx, 11, func(t *Table, s *wal.SchemaFacts, db, sch, rel *string) (out [][]*string) {
				for _, c := range s.Constraints {
					kind := constraintType(c.Type)
					if kind == "" {
						continue
					}
					var nulls *string
					if c.Type == 'u' {
						nulls = pgUnknown
						for _, x := range s.Indexes {
							if x.OID == c.Index {
								nulls = sv(yesNo(!x.NullsNotDistinct))
							}
						}
					}
					out = append(out, []*string{db, sch, sv(c.Name), db, sch, rel, sv(kind), sv(yesNo(c.Deferrable)), sv(yesNo(c.Deferred)), sv("YES"), nulls})
				}
				cols, ok := tableColumnsView(t) // catalog_columns.go
				if !ok {
					out = append(out, unknownRow(11))
				}
				for _, c := range cols {
					f := c.facts
					if f == nil {
						out = append(out, unknownRow(11))
						break
					}
					if f.NotNull {
						out = append(out, []*string{db, sch, pgUnknown, db, sch, rel, sv("CHECK"), sv("NO"), sv("NO"), sv("YES"), nil})
					}
				}
				return out
			})
		}},
	{schema: "information_schema", name: "key_column_usage", refuse: infoSchemaMajor,
		cols: pgc("constraint_catalog name, constraint_schema name, constraint_name name, table_catalog name, table_schema name, table_name name, " +
			"column_name name, ordinal_position int4, position_in_unique_constraint int4"),
		rows: func(cx *pgCatCtx) [][]*string {
			return constraintTables(cx, 9, func(t *Table, s *wal.SchemaFacts, db, sch, rel *string) (out [][]*string) {
				for _, c := range s.Constraints {
					if c.Type != 'p' && c.Type != 'u' && c.Type != 'f' {
						continue
					}
					for n, col := range c.Columns {
						var pos *string
						if c.Type == 'f' {
							pos = referencedPosition(cx.tables, c.RefOID, c.Index, nthOr(c.RefColumns, n))
						}
						out = append(out, []*string{db, sch, sv(c.Name), db, sch, rel, sv(col), iv(int64(n + 1)), pos})
					}
				}
				return out
			})
		}},
	{schema: "information_schema", name: "constraint_column_usage", refuse: infoSchemaMajor,
		cols: pgc("table_catalog name, table_schema name, table_name name, column_name name, constraint_catalog name, constraint_schema name, constraint_name name"),
		rows: func(cx *pgCatCtx) [][]*string {
			followed := map[uint32]bool{}
			for i := range cx.tables {
				followed[cx.tables[i].OID] = true
			}
			return constraintTables(cx, 7, func(t *Table, s *wal.SchemaFacts, db, sch, rel *string) (out [][]*string) {
				for _, c := range s.Constraints {
					switch c.Type {
					case 'c', 'p', 'u':
						cols := slices.Clone(c.Columns)
						if c.Type == 'c' { // SELECT DISTINCT over pg_depend: each column once
							slices.Sort(cols)
							cols = slices.Compact(cols)
						}
						for _, col := range cols {
							out = append(out, []*string{db, sch, rel, sv(col), db, sch, sv(c.Name)})
						}
					case 'f':
						for _, col := range c.RefColumns {
							out = append(out, []*string{db, sv(c.RefSchema), sv(c.RefTable), sv(col), db, sch, sv(c.Name)})
						}
					}
				}
				// A table sidecar does not follow with a foreign key to
				// this one: its constraint's rows name this table's
				// columns under a constraint not read.
				for _, o := range s.ReferencedBy {
					if !followed[o] {
						out = append(out, []*string{db, sch, rel, pgUnknown, db, pgUnknown, pgUnknown})
					}
				}
				return out
			})
		}},
}

// constraintTables walks the followed tables for the constraint views:
// a table whose schema facts were not read gives one row of width
// unknown values (its constraints are not known); the others give the
// rows of each, from their facts and the database, schema and table
// name values every view repeats.
func constraintTables(cx *pgCatCtx, width int, rows func(t *Table, s *wal.SchemaFacts, db, sch, rel *string) [][]*string) [][]*string {
	var out [][]*string
	for i := range cx.tables {
		t := &cx.tables[i]
		s := schemaFactsOf(t)
		if s == nil {
			out = append(out, unknownRow(width))
			continue
		}
		out = append(out, rows(t, s, sv(cx.db), sv(t.Schema), sv(t.Rel))...)
	}
	return append(out, unfollowedTableRows(cx, width, func(row []*string, db, sch, rel *string) {
		switch width {
		case 11, 9: // table_constraints, key_column_usage
			row[0], row[1], row[3], row[4], row[5] = db, sch, db, sch, rel
		case 7: // constraint_column_usage
			row[0], row[1], row[2] = db, sch, rel
		}
	})...)
}

// unfollowedTableRows stand in for the constraint views' rows of the
// tables sidecar does not follow (the relation list's tables,
// partitioned tables and foreign tables whose constraints it does not
// read): one row per table, with the names fill sets and pgStandIn
// elsewhere, so a statement whose filter does not drop it (by schema or
// table name) is refused — PostgreSQL lists those tables' constraints,
// and the views listed only the followed tables' (a wrong answer). One
// row of stand-ins when the relation list was not read.
func unfollowedTableRows(cx *pgCatCtx, width int, fill func(row []*string, db, sch, rel *string)) [][]*string {
	standIn := func() []*string {
		row := make([]*string, width)
		for i := range row {
			row[i] = pgStandIn
		}
		return row
	}
	l := relationList(cx.tables) // pgcatalog_relations.go
	if l == nil || l.Relations == nil {
		return [][]*string{standIn()}
	}
	followed := map[uint32]bool{}
	for i := range cx.tables {
		followed[cx.tables[i].OID] = true
	}
	nsp := map[uint32]string{}
	for _, n := range l.Namespaces {
		nsp[n.OID] = n.Name
	}
	var out [][]*string
	for _, r := range l.Relations {
		if followed[r.OID] || r.Kind != 'r' && r.Kind != 'p' && r.Kind != 'f' {
			continue
		}
		row := standIn()
		fill(row, sv(cx.db), sv(nsp[r.Namespace]), sv(r.Name))
		out = append(out, row)
	}
	return out
}

// infoSchemaMajor refuses the constraint views where sidecar does not
// know how the followed major computes them (see infoSchemaRels).
func infoSchemaMajor(cx *pgCatCtx) error {
	v := serverVersion(cx.tables)
	if v == 0 || v >= 180000 {
		return unsupported(-1, "information_schema's constraint views on this PostgreSQL major (sidecar computes those of 14 to 17; the major was not read or is 18+)")
	}
	return nil
}

// constraintType is table_constraints.constraint_type of a contype, ""
// for the ones the view leaves out (triggers 't', exclusions 'x', and
// 18's NOT NULL 'n', which infoSchemaMajor refuses).
func constraintType(t byte) string {
	switch t {
	case 'c':
		return "CHECK"
	case 'f':
		return "FOREIGN KEY"
	case 'p':
		return "PRIMARY KEY"
	case 'u':
		return "UNIQUE"
	}
	return ""
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

func unknownRow(n int) []*string {
	row := make([]*string, n)
	for i := range row {
		row[i] = pgUnknown
	}
	return row
}

func nthOr(vals []string, i int) string {
	if i < len(vals) {
		return vals[i]
	}
	return ""
}

// referencedPosition is _pg_index_position(conindid, confkey[n]): the
// position of the referenced column col among the key columns of the
// unique index the foreign key uses, unknown when the referenced table
// is not followed or its index is not read.
func referencedPosition(tables []Table, refOID, index uint32, col string) *string {
	for i := range tables {
		if tables[i].OID != refOID {
			continue
		}
		s := schemaFactsOf(&tables[i])
		if s == nil {
			return pgUnknown
		}
		for _, x := range s.Indexes {
			if x.OID != index || x.Expressions {
				continue
			}
			keys := x.Columns
			if int(x.KeyColumns) <= len(keys) && x.KeyColumns > 0 {
				keys = keys[:x.KeyColumns]
			}
			if p := slices.Index(keys, col); p >= 0 {
				return sv(strconv.Itoa(p + 1))
			}
		}
	}
	return pgUnknown
}
