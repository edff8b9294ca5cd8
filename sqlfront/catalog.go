package sqlfront

import (
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/internal/pgident"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// The flat planner's small information_schema, pg_database and
// pg_tables, built from the mirror's relations (pg_namespace, pg_class,
// pg_attribute, pg_attrdef, pg_type and pg_am run on the engine:
// pgcatalog.go).
// information_schema's columns are typed as PostgreSQL's RowDescription
// describes its domains: by their base types and typmods (yesOrNo).

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
		case "pg_tables":
			return &virtual{cols: []Column{col("schemaname", oidName), col("tablename", oidName)}, rows: func(ex *execCtx) ([][]*string, error) {
				var rows [][]*string
				for _, t := range ex.src.Tables() {
					rows = append(rows, []*string{strp(t.Schema), strp(t.Rel)})
				}
				return rows, nil
			}}
		}
	case "information_schema":
		switch name {
		case "tables":
			return &virtual{cols: []Column{col("table_catalog", oidName), col("table_schema", oidName), col("table_name", oidName), col("table_type", oidVarchar)},
				rows: func(ex *execCtx) ([][]*string, error) {
					var rows [][]*string
					tables := ex.src.Tables()
					for _, t := range tables {
						rows = append(rows, []*string{strp(ex.sess.database), strp(t.Schema), strp(t.Rel), strp("BASE TABLE")})
					}
					// Views (not materialized ones, which PostgreSQL leaves out).
					_, ns := (&pgCatCtx{tables: tables}).namespaces()
					for _, v := range listedViews(tables, ns) {
						if v.Kind == 'v' {
							rows = append(rows, []*string{strp(ex.sess.database), strp(v.Schema), strp(v.Name), strp("VIEW")})
						}
					}
					return rows, nil
				}}
		case "columns":
			return &virtual{cols: []Column{col("table_catalog", oidName), col("table_schema", oidName), col("table_name", oidName), col("column_name", oidName),
				col("ordinal_position", oidInt4), col("column_default", oidVarchar), col("data_type", oidVarchar),
				Column{Name: "is_nullable", TypeOID: oidVarchar, TypeMod: yesOrNo.Mod}, col("udt_name", oidName),
				col("is_generated", oidVarchar), col("generation_expression", oidVarchar)},
				rows: func(ex *execCtx) ([][]*string, error) {
					var rows [][]*string
					tables := ex.src.Tables()
					for _, t := range tables {
						cols, ok := tableColumnsView(&t) // catalog_columns.go
						if !ok {
							return nil, notCarriedUnread("information_schema.columns", &t)
						}
						for _, c := range cols {
							f := c.facts
							if f == nil {
								return nil, unsupported(-1, "information_schema.columns of "+t.Name+": its NOT NULL was not read (copied by an older sidecar; a resync reads it)")
							}
							nullable := "YES"
							if f.NotNull {
								nullable = "NO"
							}
							def, err := columnDefault(ex, &t, f)
							if err != nil {
								return nil, err
							}
							generated, expr, err := columnGeneration(ex, &t, f) // catalog_columns.go
							if err != nil {
								return nil, err
							}
							rows = append(rows, []*string{strp(ex.sess.database), strp(t.Schema), strp(t.Rel), strp(c.Name), strp(strconv.Itoa(int(c.attnum))),
								def, strp(dataType(c.Column)), strp(nullable), strp(udtNameOf(c.TypeName)), generated, expr})
						}
					}
					// A view's columns (never NOT NULL; materialized views
					// are not listed by PostgreSQL).
					_, ns := (&pgCatCtx{tables: tables}).namespaces()
					for _, v := range listedViews(tables, ns) {
						if v.Kind != 'v' {
							continue
						}
						for i, vc := range v.Columns {
							if _, ok := types.Lookup(vc.TypeOID); !ok {
								return nil, unsupported(-1, "information_schema.columns of the view "+v.Schema+"."+v.Name+": the type of its column "+vc.Name)
							}
							c := Column{Name: vc.Name, TypeOID: vc.TypeOID, TypeMod: vc.TypeMod}
							// column_default NULL: a view column has a default
							// only after ALTER VIEW … SET DEFAULT, which the
							// view facts do not read (see DESIGN).
							rows = append(rows, []*string{strp(ex.sess.database), strp(v.Schema), strp(v.Name), strp(vc.Name), strp(strconv.Itoa(i + 1)),
								nil, strp(dataType(c)), strp("YES"), strp(typname(vc.TypeOID)), strp("NEVER"), nil})
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

// columnDefault is information_schema.columns.column_default of a
// table's column: pg_get_expr(adbin, adrelid) as the copy read it (under
// search_path public), NULL for none and for a generated column. Under
// another search path the expression's names may print otherwise
// (nextval('public.s'::regclass)): refused there.
func columnDefault(ex *execCtx, t *Table, f *wal.ColumnFacts) (*string, error) {
	if !f.HasDefault || f.Generated != 0 {
		return nil, nil
	}
	if path := searchPathOf(ex.sess); !slices.Equal(path, []string{ex.sess.user, "public"}) && !slices.Equal(path, []string{"public"}) {
		return nil, unsupported(-1, "information_schema.columns.column_default of "+t.Name+" under search_path "+strings.Join(path, ", ")+
			" (the default expressions were read under public)")
	}
	for _, o := range ex.src.Tables() {
		if o.Schema == ex.sess.user && o.Schema != "public" { // "$user" names a schema: names may resolve there
			return nil, unsupported(-1, "information_schema.columns.column_default under a search_path whose \"$user\" names the schema "+o.Schema)
		}
	}
	return strp(f.Default), nil
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

// udtNameOf is udtName's name.
func udtNameOf(name string) string {
	n, _ := udtName(name)
	return n
}
