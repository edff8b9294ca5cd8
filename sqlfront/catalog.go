package sqlfront

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/internal/pgident"
	"github.com/sidecar-dev/sidecar/types"
)

// The flat planner's pg_database (the catalog relations, pg_tables and
// information_schema's run on the engine: pgcatalog.go,
// catalog_infoschema.go, catalog_infoschema_tables.go), and the type
// names information_schema's data_type prints.

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
	{types.Inet, "inet"}, {types.Cidr, "cidr"}, {types.Macaddr, "macaddr"}, {types.Macaddr8, "macaddr8"}, // types/inet.go, macaddr.go
	{types.Int4range, "int4range"}, {types.Numrange, "numrange"}, {types.Tsrange, "tsrange"}, {types.Tstzrange, "tstzrange"}, // types/rangetype.go
	{types.Daterange, "daterange"}, {types.Int8range, "int8range"},
}

func u32(v uint32) *string { return strp(strconv.FormatUint(uint64(v), 10)) }

// catalogRelation returns the virtual relation schema.name, or nil.
func catalogRelation(schema, name string) *virtual {
	switch schema {
	case "", "pg_catalog":
		switch name {
		case "pg_database":
			return &virtual{dbList: true, cols: []Column{col("oid", oidOID), col("datname", oidName)}, rows: func(ex *execCtx) ([][]*string, error) {
				for _, t := range ex.src.Tables() {
					if s := schemaFactsOf(&t); s != nil && s.DatabaseOID != 0 {
						return [][]*string{{u32(s.DatabaseOID), strp(ex.sess.database)}}, nil
					}
				}
				return nil, unsupported(-1, "pg_database.oid (not read: no followed table copied by this sidecar version yet)")
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

// dataType is information_schema's data_type of a column.
func dataType(c Column) string {
	switch c.TypeOID {
	case oidVarchar, oidBpchar, oidInt2, oidInt4, oidInt8, oidFloat4, oidFloat8, oidNumeric, oidText, oidBool, oidDate, oidTimestamp, oidTimestamptz, oidUUID, oidBytea, oidJSON, oidJSONB, oidName,
		oidInterval, oidTime:
		return typeName(c.TypeOID)
	}
	// information_schema.columns' data_type: 'ARRAY' for an array type
	// (typelem <> 0 and typlen = -1), format_type(oid, NULL) for another
	// type of pg_catalog, 'USER-DEFINED' for the rest; a domain by its
	// base type. It said USER-DEFINED for every type outside the list
	// above: text[] and inet columns (issue 21).
	if c.TypeName == "" { // a view's column: a type of sidecar's catalog
		if types.IsArray(c.TypeOID) {
			return "ARRAY"
		}
		if t, ok := types.Lookup(c.TypeOID); ok {
			return t.SQLName
		}
		return "USER-DEFINED"
	}
	// TypeName is pg_type.typname, "schema.typname" outside pg_catalog,
	// a domain's base type's (the copy's columnsSQL, as pgoutput).
	base, qualified := udtName(c.TypeName)
	switch {
	case strings.HasPrefix(base, "_"):
		// PostgreSQL names an array type "_" + its element's name (a
		// type named so otherwise is renamed away by makeArrayTypeName).
		return "ARRAY"
	case qualified:
		return "USER-DEFINED"
	}
	switch base {
	case "timetz":
		return "time with time zone"
	case "bit":
		return "bit"
	case "varbit":
		return "bit varying"
	case "char":
		return `"char"`
	}
	if t, _, err := types.Parse(base); err == nil {
		return t.SQLName
	}
	// format_type of another pg_catalog type is its name, quoted where
	// an identifier needs it.
	return pgident.Quote(base)
}

// udtName is information_schema's udt_name of a column whose TypeName is
// name (typname, schema-qualified outside pg_catalog): the name without
// its schema, and whether it had one.
func udtName(name string) (string, bool) {
	if _, n, ok := strings.Cut(name, "."); ok {
		return n, true
	}
	return name, false
}

// restrictDatabases checks the pg_database items of a SELECT: it lists
// the current database only (the cluster's other databases are not
// read), so its rows are served only under a WHERE conjunct naming the
// current database — datname = current_database(), = 'name' or = $n —
// and refused for another name; a scan of every database is refused
// (it answered the current database alone).
func (pl *planner) restrictDatabases(where *pg.Node) error {
	for _, it := range pl.p.from {
		if it.virt == nil || !it.virt.dbList {
			continue
		}
		name := datnameRestriction(where)
		if name == nil {
			return unsupported(-1, "pg_database without WHERE datname = current_database() (the cluster's other databases are not read)")
		}
		v := *it.virt
		rows := v.rows
		v.rows = func(ex *execCtx) ([][]*string, error) {
			n, ok := name(ex)
			if !ok || n != ex.sess.database {
				return nil, unsupported(-1, "pg_database's row of another database than the current one (the cluster's other databases are not read)")
			}
			return rows(ex)
		}
		it.virt = &v
	}
	return nil
}

// datnameRestriction finds a top-level conjunct of where equating the
// column datname with current_database(), a string constant or a
// parameter (each maybe cast), and returns the name it restricts to at
// execution (false when not a string), or nil.
func datnameRestriction(where *pg.Node) func(ex *execCtx) (string, bool) {
	if where == nil {
		return nil
	}
	if b := where.GetBoolExpr(); b != nil {
		if b.Boolop != pg.BoolExprType_AND_EXPR {
			return nil
		}
		for _, a := range b.Args {
			if f := datnameRestriction(a); f != nil {
				return f
			}
		}
		return nil
	}
	e := where.GetAExpr()
	if e == nil || e.Kind != pg.A_Expr_Kind_AEXPR_OP || len(e.Name) != 1 || e.Name[0].GetString_().GetSval() != "=" {
		return nil
	}
	isDatname := func(n *pg.Node) bool {
		c := n.GetColumnRef()
		return c != nil && len(c.Fields) > 0 && c.Fields[len(c.Fields)-1].GetString_().GetSval() == "datname"
	}
	value := func(n *pg.Node) func(ex *execCtx) (string, bool) {
		for n.GetTypeCast() != nil {
			n = n.GetTypeCast().Arg
		}
		switch {
		case n.GetFuncCall() != nil:
			f := n.GetFuncCall()
			if len(f.Args) == 0 && len(f.Funcname) > 0 && f.Funcname[len(f.Funcname)-1].GetString_().GetSval() == "current_database" {
				return func(ex *execCtx) (string, bool) { return ex.sess.database, true }
			}
		case n.GetAConst() != nil && n.GetAConst().GetSval() != nil:
			s := n.GetAConst().GetSval().Sval
			return func(*execCtx) (string, bool) { return s, true }
		case n.GetParamRef() != nil:
			k := int(n.GetParamRef().Number) - 1
			return func(ex *execCtx) (string, bool) {
				if k < 0 || k >= len(ex.params) {
					return "", false
				}
				s, ok := ex.params[k].(string)
				return s, ok
			}
		}
		return nil
	}
	switch {
	case isDatname(e.Lexpr):
		return value(e.Rexpr)
	case isDatname(e.Rexpr):
		return value(e.Lexpr)
	}
	return nil
}
