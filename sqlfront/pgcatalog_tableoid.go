package sqlfront

import lplan "github.com/sidecar-dev/sidecar/sql/plan"

// catalogTableOIDs are the pg_class OIDs of the system catalogs sidecar
// serves (the same on 14–18): a catalog row's tableoid. psql's \dL and
// \dd join pg_description on classoid = tableoid. The views (pg_roles,
// pg_user, pg_settings) have no system columns.
var catalogTableOIDs = map[string]uint32{
	"pg_type": 1247, "pg_attribute": 1249, "pg_proc": 1255, "pg_class": 1259, "pg_auth_members": 1261,
	"pg_database": 1262, "pg_sequence": 2224, "pg_am": 2601, "pg_attrdef": 2604, "pg_cast": 2605,
	"pg_constraint": 2606, "pg_description": 2609, "pg_index": 2610, "pg_language": 2612,
	"pg_namespace": 2615, "pg_operator": 2617, "pg_policy": 3256, "pg_event_trigger": 3466,
	"pg_enum": 3501, "pg_publication": 6104, "pg_publication_rel": 6106, "pg_publication_namespace": 6237,
}

// withTableOID is r with its tableoid system column (last; found by
// name, not expanded by *: lplan.ColumnDef.System) when r is a system
// catalog of pg_catalog; r itself otherwise.
func (r *pgRel) withTableOID() *pgRel {
	oid, ok := catalogTableOIDs[r.name]
	if !ok || r.schema != "pg_catalog" || r.colIndex("tableoid") >= 0 {
		return r
	}
	w := *r
	w.cols = append(append([]pgCol(nil), r.cols...), pgCol{name: "tableoid", typ: lplan.T(oidOID), system: true})
	rows, v := r.rows, u32(oid)
	w.rows = func(cx *pgCatCtx) [][]*string {
		base := rows(cx)
		out := make([][]*string, len(base))
		for i, row := range base {
			out[i] = append(row[:len(row):len(row)], v)
		}
		return out
	}
	return &w
}
