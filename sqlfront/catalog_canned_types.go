package sqlfront

import "strings"

// The RowDescription of the canned psql answers (catalog_psql.go): each
// column as PostgreSQL describes it — name, bool, "char", int2, oid,
// regclass, not text, and the catalog column it is (its table OID and
// attnum on the followed server's major). psql prints them alike, but a
// client reading the types, or asking for binary results, saw text where
// PostgreSQL sends bool, int2 or oid bytes, and no origins (issue 21
// audit). A column is "name[:type][@relation.column]": text without a
// type, no origin without a relation.

// cannedTypes are the column types the canned answers use.
var cannedTypes = map[string]uint32{"name": oidName, "oid": oidOID, "bool": oidBool, "char": oidCharType, "int2": oidInt2,
	"int4": oidInt4, "int8": oidInt8, "regclass": oidRegclass}

// cannedCol is one canned column as PostgreSQL describes it.
type cannedCol struct {
	name     string
	typ      uint32
	tableOID uint32
	attnum   int16
}

// cannedColumn reads one canned column spec for the followed server of
// version (0: not read): "stattarget" is pg_statistic_ext.stxstattarget,
// int4 before 17 and int2 from 17, "attstattarget" pg_attribute's, int4
// before 16 and int2 from 16 (refused when the version was not read).
func cannedColumn(spec string, version int) (cannedCol, error) {
	spec, origin, _ := strings.Cut(spec, "@")
	name, typ, ok := strings.Cut(spec, ":")
	c := cannedCol{name: name, typ: oidText}
	switch {
	case !ok:
	case typ == "attstattarget" && version == 0:
		return c, unsupported(-1, "psql's \\d+ column query when the followed server's version was not read (attstattarget's type differs by major)")
	case typ == "attstattarget" && version >= 160000:
		c.typ = oidInt2 // int2 from 16
	case typ == "attstattarget":
		c.typ = oidInt4
	case typ == "stattarget" && version == 0:
		return c, unsupported(-1, "psql's extended statistics query when the followed server's version was not read (stxstattarget's type differs by major)")
	case typ == "stattarget" && version >= 170000:
		c.typ = oidInt2
	case typ == "stattarget":
		c.typ = oidInt4
	default:
		t, known := cannedTypes[typ]
		if !known {
			panic("canned column type " + typ)
		}
		c.typ = t
	}
	if rel, col, ok := strings.Cut(origin, "."); ok {
		c.tableOID, c.attnum = catalogColumnOrigin(rel, col, version)
	}
	return c, nil
}

// otherCatalogs are the pg_class OIDs and the columns' attnums (the same
// on 14 to 18) of the system catalogs psql's canned queries read that
// sidecar's engine does not serve.
var otherCatalogs = map[string]struct {
	oid  uint32
	cols map[string]int16
}{
	"pg_trigger":       {2620, map[string]int16{"tgname": 4, "tgenabled": 7, "tgisinternal": 8}},
	"pg_policy":        {3256, map[string]int16{"polname": 2, "polpermissive": 5}},
	"pg_inherits":      {2611, map[string]int16{"inhdetachpending": 4}},
	"pg_statistic_ext": {3381, map[string]int16{"oid": 1, "stxname": 3}},
}

// catalogColumnOrigin is the table OID and attnum of pg_catalog's
// rel.col on the followed server of version: the engine's relations by
// their layout for that major (pgcatalog_major.go), the others by
// otherCatalogs; 0/0 when not known (a column whose attnum differs by
// major when the version was not read: pg_statistic_ext.stxstattarget
// is 6 before 17 and 7 from 17).
func catalogColumnOrigin(rel, col string, version int) (uint32, int16) {
	if o, ok := otherCatalogs[rel]; ok {
		if n, ok := o.cols[col]; ok {
			return o.oid, n
		}
		if rel == "pg_statistic_ext" && col == "stxstattarget" && version != 0 {
			if version < 170000 {
				return o.oid, 6
			}
			return o.oid, 7 // 17 moved it after stxkeys
		}
		return 0, 0
	}
	oid, ok := catalogTableOIDs[rel]
	r := catalogDef("pg_catalog", rel)
	if !ok || r == nil || version == 0 && len(majorLayouts[rel]) > 0 {
		return 0, 0
	}
	i := r.forVersion(version).colIndex(col)
	if i < 0 {
		return 0, 0
	}
	return oid, int16(i + 1)
}
