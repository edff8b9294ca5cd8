package sqlfront

// The partitioned tables above the followed partitions (pgcatalog_
// partitioned.go: pg_class lists them) are tables of the listings over
// pg_class too: information_schema.tables and pg_tables list them as
// BASE TABLE/relkind 'p' as PostgreSQL does (they were missing: a
// database following partitions of meas answered both without meas),
// and information_schema.columns stands in for their columns, which
// are not read (a partition's columns may be ordered otherwise). While
// a followed partition's ancestors are unread (a record written by an
// older sidecar), one stand-in row refuses what may list them.

// standInRow is a row of n stand-in cells (pgcatalog.go).
func standInRow(n int) []*string {
	row := make([]*string, n)
	for i := range row {
		row[i] = pgStandIn
	}
	return row
}

// partitionedInfoSchemaTables are information_schema.tables' rows of the
// partitioned tables; a stand-in row while they are unread.
func partitionedInfoSchemaTables(cx *pgCatCtx) [][]*string {
	parts, read := partitionedClasses(cx.tables)
	if !read {
		return [][]*string{standInRow(12)}
	}
	db := sv(cx.db)
	var out [][]*string
	for _, a := range parts {
		typed := pgUnknown // reloftype is not read with the ancestors
		if r, ok := listedRelation(cx.tables, a.Schema, a.Name); ok && r.OID == a.OID {
			typed = sv(yesNo(r.Class.OfType != 0))
		}
		out = append(out, []*string{db, sv(a.Schema), sv(a.Name), sv("BASE TABLE"), nil, nil, nil, nil, nil, sv("YES"), typed, nil})
	}
	return out
}

// partitionedPgTables are pg_tables' rows of the partitioned tables; a
// stand-in row while they are unread.
func partitionedPgTables(cx *pgCatCtx) [][]*string {
	parts, read := partitionedClasses(cx.tables)
	if !read {
		return [][]*string{standInRow(8)}
	}
	var out [][]*string
	for _, a := range parts {
		owner := pgUnknown
		if a.Owner != "" {
			owner = sv(a.Owner)
		}
		space, rules, triggers, rls := pgUnknown, pgUnknown, pgUnknown, pgUnknown
		if r, ok := listedRelation(cx.tables, a.Schema, a.Name); ok && r.OID == a.OID {
			c := r.Class
			space, rules, triggers, rls = nil, bv(c.HasRules), bv(c.HasTrigger), bv(c.RowSecurity)
			if c.Tablespace != 0 {
				space = pgUnknown // its name is not read
			}
		}
		out = append(out, []*string{sv(a.Schema), sv(a.Name), owner, space, bv(len(a.Indexes) > 0), rules, triggers, rls})
	}
	return out
}

// partitionedInfoSchemaColumns are the partitioned tables' columns in
// information_schema.columns: as read (pgcatalog_partlists_cols.go), or
// a stand-in row each while they are not.
func partitionedInfoSchemaColumns(cx *pgCatCtx, read map[[2]string][][]*string, width int) [][]*string {
	var out [][]*string
	for _, r := range partitionedInfoSchemaTables(cx) {
		out = append(out, columnsOrStandIn(r, read, width)...)
	}
	return out
}
