package sqlfront

import (
	"strconv"
)

// The catalog is a small virtual pg_catalog and information_schema built
// from the mirror's relations: their real table OIDs, type OIDs and
// typmods (attnums are column positions among the published columns).

const publicNamespaceOID = 2200

// catalogTypes are the pg_type rows served: the types the evaluator knows.
var catalogTypes = []struct {
	oid  uint32
	name string
}{
	{oidBool, "bool"}, {oidBytea, "bytea"}, {oidCharType, "char"}, {oidName, "name"}, {oidInt8, "int8"}, {oidInt2, "int2"},
	{oidInt4, "int4"}, {oidText, "text"}, {oidOID, "oid"}, {oidJSON, "json"}, {oidFloat4, "float4"}, {oidFloat8, "float8"},
	{oidUnknown, "unknown"}, {oidBpchar, "bpchar"}, {oidVarchar, "varchar"}, {oidDate, "date"}, {oidTime, "time"},
	{oidTimestamp, "timestamp"}, {oidTimestamptz, "timestamptz"}, {oidInterval, "interval"}, {oidNumeric, "numeric"},
	{oidUUID, "uuid"}, {oidJSONB, "jsonb"},
}

func u32(v uint32) *string { return strp(strconv.FormatUint(uint64(v), 10)) }

// catalogRelation returns the virtual relation schema.name, or nil.
func catalogRelation(schema, name string) *virtual {
	switch schema {
	case "", "pg_catalog":
		switch name {
		case "pg_namespace":
			return &virtual{cols: []Column{col("oid", oidOID), col("nspname", oidName)}, rows: func(ex *execCtx) ([][]*string, error) {
				rows := [][]*string{{u32(11), strp("pg_catalog")}, {u32(publicNamespaceOID), strp("public")}, {u32(13000), strp("information_schema")}}
				seen := map[string]bool{"public": true}
				for i, t := range ex.src.Tables() {
					if !seen[t.Schema] {
						seen[t.Schema] = true
						rows = append(rows, []*string{u32(uint32(16384 + i)), strp(t.Schema)})
					}
				}
				return rows, nil
			}}
		case "pg_type":
			return &virtual{cols: []Column{col("oid", oidOID), col("typname", oidName), col("typnamespace", oidOID), col("typtype", oidCharType), col("typbasetype", oidOID)},
				rows: func(*execCtx) ([][]*string, error) {
					var rows [][]*string
					for _, t := range catalogTypes {
						rows = append(rows, []*string{u32(t.oid), strp(t.name), u32(11), strp("b"), u32(0)})
					}
					return rows, nil
				}}
		case "pg_database":
			return &virtual{cols: []Column{col("oid", oidOID), col("datname", oidName)}, rows: func(ex *execCtx) ([][]*string, error) {
				return [][]*string{{u32(1), strp(ex.sess.database)}}, nil
			}}
		case "pg_class", "pg_tables":
			if name == "pg_tables" {
				return &virtual{cols: []Column{col("schemaname", oidName), col("tablename", oidName)}, rows: func(ex *execCtx) ([][]*string, error) {
					var rows [][]*string
					for _, t := range ex.src.Tables() {
						rows = append(rows, []*string{strp(t.Schema), strp(t.Rel)})
					}
					return rows, nil
				}}
			}
			return &virtual{cols: []Column{col("oid", oidOID), col("relname", oidName), col("relnamespace", oidOID), col("relkind", oidCharType), col("relnatts", oidInt2)},
				rows: func(ex *execCtx) ([][]*string, error) {
					var rows [][]*string
					for _, t := range ex.src.Tables() {
						rows = append(rows, []*string{u32(t.OID), strp(t.Rel), u32(namespaceOID(ex, t.Schema)), strp("r"), strp(strconv.Itoa(len(t.Columns)))})
					}
					return rows, nil
				}}
		case "pg_attribute":
			return &virtual{cols: []Column{col("attrelid", oidOID), col("attname", oidName), col("atttypid", oidOID), col("attnum", oidInt2), col("atttypmod", oidInt4), col("attnotnull", oidBool), col("attisdropped", oidBool)},
				rows: func(ex *execCtx) ([][]*string, error) {
					var rows [][]*string
					for _, t := range ex.src.Tables() {
						for i, c := range t.Columns {
							rows = append(rows, []*string{u32(t.OID), strp(c.Name), u32(c.TypeOID), strp(strconv.Itoa(i + 1)),
								strp(strconv.Itoa(int(c.TypeMod))), strp(boolText(c.Key)), strp("f")})
						}
					}
					return rows, nil
				}}
		}
	case "information_schema":
		switch name {
		case "tables":
			return &virtual{cols: []Column{col("table_catalog", oidName), col("table_schema", oidName), col("table_name", oidName), col("table_type", oidText)},
				rows: func(ex *execCtx) ([][]*string, error) {
					var rows [][]*string
					for _, t := range ex.src.Tables() {
						rows = append(rows, []*string{strp(ex.sess.database), strp(t.Schema), strp(t.Rel), strp("BASE TABLE")})
					}
					return rows, nil
				}}
		case "columns":
			return &virtual{cols: []Column{col("table_catalog", oidName), col("table_schema", oidName), col("table_name", oidName), col("column_name", oidName),
				col("ordinal_position", oidInt4), col("data_type", oidText), col("is_nullable", oidText), col("udt_name", oidName)},
				rows: func(ex *execCtx) ([][]*string, error) {
					var rows [][]*string
					for _, t := range ex.src.Tables() {
						for i, c := range t.Columns {
							nullable := "YES"
							if c.Key {
								nullable = "NO"
							}
							rows = append(rows, []*string{strp(ex.sess.database), strp(t.Schema), strp(t.Rel), strp(c.Name), strp(strconv.Itoa(i + 1)),
								strp(dataType(c)), strp(nullable), strp(c.TypeName)})
						}
					}
					return rows, nil
				}}
		case "schemata":
			return &virtual{cols: []Column{col("catalog_name", oidName), col("schema_name", oidName)}, rows: func(ex *execCtx) ([][]*string, error) {
				rows := [][]*string{{strp(ex.sess.database), strp("public")}}
				seen := map[string]bool{"public": true}
				for _, t := range ex.src.Tables() {
					if !seen[t.Schema] {
						seen[t.Schema] = true
						rows = append(rows, []*string{strp(ex.sess.database), strp(t.Schema)})
					}
				}
				return rows, nil
			}}
		}
	}
	return nil
}

func boolText(b bool) string {
	if b {
		return "t"
	}
	return "f"
}

func namespaceOID(ex *execCtx, schema string) uint32 {
	if schema == "public" {
		return publicNamespaceOID
	}
	seen := map[string]bool{"public": true}
	for i, t := range ex.src.Tables() {
		if !seen[t.Schema] {
			seen[t.Schema] = true
			if t.Schema == schema {
				return uint32(16384 + i)
			}
		}
	}
	return 0
}

// dataType is information_schema's data_type of a column.
func dataType(c Column) string {
	switch c.TypeOID {
	case oidVarchar, oidBpchar, oidInt2, oidInt4, oidInt8, oidFloat4, oidFloat8, oidNumeric, oidText, oidBool, oidDate, oidTimestamp, oidTimestamptz, oidUUID, oidBytea, oidJSON, oidJSONB, oidName:
		return typeName(c.TypeOID)
	}
	return "USER-DEFINED"
}
