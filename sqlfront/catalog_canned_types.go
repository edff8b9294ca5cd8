package sqlfront

import "strings"

// The RowDescription of the canned psql answers (catalog_psql.go): each
// column as PostgreSQL describes it — name, bool, "char", int2, oid,
// regclass — not text. psql prints them alike, but a client reading the
// types, or asking for binary results, saw text where PostgreSQL sends
// bool, int2 or oid bytes (issue 21 audit). A column is "name:type"
// ("name" alone is text). The result columns' table OIDs and attnums
// stay 0, as on the engine path for catalog relations (vexec_origin.go).

// cannedTypes are the column types the canned answers use.
var cannedTypes = map[string]uint32{"name": oidName, "oid": oidOID, "bool": oidBool, "char": oidCharType, "int2": oidInt2,
	"int4": oidInt4, "regclass": oidRegclass}

// cannedColumn reads one canned column spec for the followed server of
// version (0: not read): "stattarget" is pg_statistic_ext.stxstattarget,
// int4 before 17 and int2 from 17 (refused when the version was not
// read).
func cannedColumn(spec string, version int) (string, uint32, error) {
	name, typ, ok := strings.Cut(spec, ":")
	if !ok {
		return spec, oidText, nil
	}
	if typ == "stattarget" {
		switch {
		case version == 0:
			return "", 0, unsupported(-1, "psql's extended statistics query when the followed server's version was not read (stxstattarget's type differs by major)")
		case version >= 170000:
			return name, oidInt2, nil
		}
		return name, oidInt4, nil
	}
	t, ok := cannedTypes[typ]
	if !ok {
		panic("canned column type " + typ)
	}
	return name, t, nil
}
