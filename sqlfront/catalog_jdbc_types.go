package sqlfront

import (
	"strconv"

	"github.com/sidecar-dev/sidecar/types"
)

// jdbcType is what pgjdbc's getColumns reads of a column's pg_type row:
// typtype, typbasetype, typtypmod and typnotnull (a NOT NULL domain's
// column is NOT NULL: "a.attnotnull OR (t.typtype = 'd' AND
// t.typnotnull)"), and typlen (attlen is the type's).
type jdbcType struct {
	typtype byte
	base    uint32
	typmod  int32
	notNull bool
	len     int16
}

// builtinMultiranges are PostgreSQL's built-in multirange types (typtype
// 'm'), by OID.
var builtinMultiranges = map[uint32]bool{4451: true, 4532: true, 4533: true, 4534: true, 4535: true, 4536: true}

// jdbcColumnType is the pg_type row of a followed column's type oid:
// the listed types' (domains, enums, composites, ranges of the database
// and information_schema's domains: pgcatalog_usertypes.go) as read, a
// built-in type's base 'b' (ranges 'r', multiranges 'm'). The canned
// getColumns answered typtype 'b' and no base type for every column:
// pgjdbc reported a domain's column as its own type, not DISTINCT over
// the base, and an enum's as OTHER, not VARCHAR. A user type not read
// is refused.
func jdbcColumnType(tables []Table, oid uint32) (jdbcType, error) {
	for _, t := range listedTypes(tables) {
		if t.OID == oid {
			return jdbcType{typtype: t.Type, base: t.BaseType, typmod: t.TypMod, notNull: t.NotNull, len: t.Len}, nil
		}
	}
	if oid >= firstNormalOID {
		return jdbcType{}, unsupported(-1, "getColumns of a column of type OID "+strconv.FormatUint(uint64(oid), 10)+" (the database's types were not read)")
	}
	ty := jdbcType{typtype: 'b', typmod: -1, len: typeSize(oid)}
	switch {
	case types.IsRange(oid):
		ty.typtype = 'r'
	case builtinMultiranges[oid]:
		ty.typtype = 'm'
	}
	return ty, nil
}
