package sqlfront

import (
	"strings"
)

// Catalog relations whose columns differ by major. pg_catalog's layout
// is the followed server's (serverVersion, read with the tables'
// facts): PostgreSQL 14 has no pg_index.indnullsnotdistinct and no
// pg_constraint.confdelsetcols (sidecar answered them: PostgreSQL fails
// 42703), 16 made attndims, attinhcount, attstattarget and coninhcount
// int2 and moved attstattarget, 17 moved it again, 18 dropped
// attcacheoff and added relallfrozen, conenforced and conperiod. The
// rows are built in the base layout (pgRels: PostgreSQL 15's) and
// mapped by column name; a column the base lacks reads as unknown.
// With no version read, the base layout holds and the columns that
// differ by major read as unknown (refused when read).

// majorLayout is a relation's columns from major `from` on: names in
// PostgreSQL's order, each with its type when it is not the base's
// (pgc's spelling); "" is the base layout.
type majorLayout struct {
	from int
	cols string
}

// majorLayouts were read from PostgreSQL 14.23, 15.18, 16.14, 17.10 and
// 18.4 (pg_attribute of the catalogs, in attnum order).
var majorLayouts = map[string][]majorLayout{
	// information_schema's (catalog_infoschema.go): 15 added nulls_distinct.
	"table_constraints": {
		{140000, "constraint_catalog, constraint_schema, constraint_name, table_catalog, table_schema, table_name, constraint_type, " +
			"is_deferrable, initially_deferred, enforced"},
		{150000, ""},
	},
	"pg_attribute": {
		{160000, "attrelid, attname, atttypid, attlen, attnum, attcacheoff, atttypmod, attndims int2, attbyval, attalign, attstorage, " +
			"attcompression, attnotnull, atthasdef, atthasmissing, attidentity, attgenerated, attisdropped, attislocal, attinhcount int2, " +
			"attstattarget int2, attcollation, attacl, attoptions, attfdwoptions, attmissingval"},
		{170000, "attrelid, attname, atttypid, attlen, attnum, attcacheoff, atttypmod, attndims int2, attbyval, attalign, attstorage, " +
			"attcompression, attnotnull, atthasdef, atthasmissing, attidentity, attgenerated, attisdropped, attislocal, attinhcount int2, " +
			"attcollation, attstattarget int2, attacl, attoptions, attfdwoptions, attmissingval"},
		{180000, "attrelid, attname, atttypid, attlen, attnum, atttypmod, attndims int2, attbyval, attalign, attstorage, " +
			"attcompression, attnotnull, atthasdef, atthasmissing, attidentity, attgenerated, attisdropped, attislocal, attinhcount int2, " +
			"attcollation, attstattarget int2, attacl, attoptions, attfdwoptions, attmissingval"},
	},
	"pg_class": {
		{180000, "oid, relname, relnamespace, reltype, reloftype, relowner, relam, relfilenode, reltablespace, relpages, reltuples, " +
			"relallvisible, relallfrozen int4, reltoastrelid, relhasindex, relisshared, relpersistence, relkind, relnatts, relchecks, " +
			"relhasrules, relhastriggers, relhassubclass, relrowsecurity, relforcerowsecurity, relispopulated, relreplident, " +
			"relispartition, relrewrite, relfrozenxid, relminmxid, relacl, reloptions, relpartbound"},
	},
	"pg_constraint": {
		{140000, "oid, conname, connamespace, contype, condeferrable, condeferred, convalidated, conrelid, contypid, conindid, " +
			"conparentid, confrelid, confupdtype, confdeltype, confmatchtype, conislocal, coninhcount, connoinherit, conkey, confkey, " +
			"conpfeqop, conppeqop, conffeqop, conexclop, conbin"},
		{150000, ""},
		{160000, "oid, conname, connamespace, contype, condeferrable, condeferred, convalidated, conrelid, contypid, conindid, " +
			"conparentid, confrelid, confupdtype, confdeltype, confmatchtype, conislocal, coninhcount int2, connoinherit, conkey, confkey, " +
			"conpfeqop, conppeqop, conffeqop, confdelsetcols, conexclop, conbin"},
		{180000, "oid, conname, connamespace, contype, condeferrable, condeferred, conenforced bool, convalidated, conrelid, contypid, " +
			"conindid, conparentid, confrelid, confupdtype, confdeltype, confmatchtype, conislocal, coninhcount int2, connoinherit, " +
			"conperiod bool, conkey, confkey, conpfeqop, conppeqop, conffeqop, confdelsetcols, conexclop, conbin"},
	},
	"pg_database":        databaseLayouts,                      // pgcatalog_database.go
	"pg_collation":       collationLayouts,                     // pgcatalog_typedetail.go
	"pg_publication":     publicationLayouts["pg_publication"], // pgcatalog_publications.go
	"pg_publication_rel": publicationLayouts["pg_publication_rel"],
	"pg_auth_members": {
		{140000, "roleid, member, grantor, admin_option"},
		{160000, ""},
	},
	"pg_index": {
		{140000, "indexrelid, indrelid, indnatts, indnkeyatts, indisunique, indisprimary, indisexclusion, indimmediate, " +
			"indisclustered, indisvalid, indcheckxmin, indisready, indislive, indisreplident, indkey, indcollation, indclass, indoption, " +
			"indexprs, indpred"},
		{150000, ""},
	},
}

// layoutCols is r's columns in layout spec (nil: the base's) and, per
// column, its ordinal in the base rows (-1: not in the base, unknown).
func (r *pgRel) layoutCols(spec string) ([]pgCol, []int) {
	var cols []pgCol
	var from []int
	for _, f := range strings.Split(spec, ",") {
		name, typ, _ := strings.Cut(strings.TrimSpace(f), " ")
		i := r.colIndex(name)
		var c pgCol
		switch {
		case typ != "":
			c = pgc(name + " " + typ)[0]
		case i >= 0:
			c = r.cols[i]
		default:
			panic("pg_catalog layout of " + r.name + ": column " + name + " without a type")
		}
		cols, from = append(cols, c), append(from, i)
	}
	return cols, from
}

// colIndex is the ordinal of r's column name, -1 if none.
func (r *pgRel) colIndex(name string) int {
	for i, c := range r.cols {
		if c.name == name {
			return i
		}
	}
	return -1
}

// forVersion is r as the followed server of version (server_version_num,
// 0 unknown) has it.
func (r *pgRel) forVersion(version int) *pgRel {
	layouts := majorLayouts[r.name]
	if len(layouts) == 0 {
		return r
	}
	if version == 0 {
		// Not read: the base layout, the columns that differ unknown.
		varying := map[int]bool{}
		for _, l := range layouts {
			if l.cols == "" {
				continue
			}
			cols, from := r.layoutCols(l.cols)
			seen := map[int]bool{}
			for j, i := range from {
				if i >= 0 {
					seen[i] = true
					if cols[j].typ != r.cols[i].typ {
						varying[i] = true
					}
				}
			}
			for i := range r.cols {
				if !seen[i] {
					varying[i] = true
				}
			}
		}
		return r.remapped(r.cols, nil, varying)
	}
	spec := ""
	for _, l := range layouts {
		if l.from <= version {
			spec = l.cols
		}
	}
	if spec == "" {
		return r
	}
	cols, from := r.layoutCols(spec)
	return r.remapped(cols, from, nil)
}

// remapped is r with columns cols, each row's value j taken from the
// base row's from[j] (nil: the same ordinal; -1: unknown), the values
// of the ordinals in unknown replaced by unknown.
func (r *pgRel) remapped(cols []pgCol, from []int, unknown map[int]bool) *pgRel {
	base := r.rows
	return &pgRel{schema: r.schema, name: r.name, cols: cols, refuse: r.refuse, rows: func(cx *pgCatCtx) [][]*string {
		rows := base(cx)
		for k, row := range rows {
			out := make([]*string, len(cols))
			for j := range cols {
				i := j
				if from != nil {
					i = from[j]
				}
				if i < 0 || unknown[i] {
					out[j] = pgUnknown
				} else {
					out[j] = row[i]
				}
			}
			rows[k] = out
		}
		return rows
	}}
}
