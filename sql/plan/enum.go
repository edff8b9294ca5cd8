package plan

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/types"
)

// User enum types. A table's column of an enum type carries the type's
// labels as the statement reads them (ColumnDef.Enum, from the facts at
// the version the table is read at); the binder records each enum type
// it meets in the query's Metadata, where sql/exec finds it to read an
// enum literal ('ok' opposite an enum column, 'ok'::mood) and to cast
// text to the type. Comparisons, ordering, grouping and hashing need no
// more: an enum value (types.EnumVal) carries its sort order.

// EnumCatalog is a Catalog that also resolves enum type names (casts:
// 'ok'::mood). A Catalog without it knows no enum by name.
type EnumCatalog interface {
	// EnumType finds an enum type by schema ("": the search path) and
	// name; nil when there is none.
	EnumType(schema, name string) *types.Enum
}

// AddEnum records enum type e as one the query reads.
func (m *Metadata) AddEnum(e *types.Enum) {
	if e == nil {
		return
	}
	if m.enums == nil {
		m.enums = map[OID]*types.Enum{}
	}
	if _, ok := m.enums[e.OID]; !ok {
		m.enums[e.OID] = e
	}
}

// Enum is the enum type of OID oid the query reads (nil: none; m may
// be nil, an expression compiled outside a query).
func (m *Metadata) Enum(oid OID) *types.Enum {
	if m == nil {
		return nil
	}
	return m.enums[oid]
}

// Enums are the enum types the query reads.
func (m *Metadata) Enums() map[OID]*types.Enum {
	if m == nil {
		return nil
	}
	return m.enums
}

// IsEnum says whether t is an enum type the query reads.
func (m *Metadata) IsEnum(t Type) bool { return m.Enum(t.OID) != nil }

// addTableEnums records the enum types of t's columns.
func (b *binder) addTableEnums(t *TableDef) {
	for _, c := range t.Columns {
		b.md.AddEnum(c.Enum)
	}
}

// enumTypeOf resolves a cast's type name to an enum type of the catalog
// (ok false: not an enum the catalog knows; the built-in types are
// resolved first by the caller).
func (b *binder) enumTypeOf(tn *pg.TypeName) (Type, bool, error) {
	ec, ok := b.cat.(EnumCatalog)
	if !ok || len(tn.Names) == 0 || len(tn.Names) > 2 || tn.Setof || len(tn.Typmods) > 0 {
		return Type{}, false, nil
	}
	var parts []string
	for _, n := range tn.Names {
		parts = append(parts, n.GetString_().Sval)
	}
	schema, name := "", parts[len(parts)-1]
	if len(parts) == 2 {
		schema = parts[0]
	}
	if schema == "" && strings.EqualFold(name, "anyenum") {
		return Type{}, false, nil
	}
	e := ec.EnumType(schema, name)
	if e == nil {
		return Type{}, false, nil
	}
	b.md.AddEnum(e)
	if len(tn.ArrayBounds) > 0 {
		return Type{}, true, unsupported("arrays of the enum type "+e.Name, tn.Location)
	}
	return T(e.OID), true, nil
}

// typeString is t as a message names it: an enum type by its name.
func (b *binder) typeString(t Type) string {
	if e := b.md.Enum(t.OID); e != nil {
		return e.Name
	}
	return t.String()
}

// enumCall binds enum_first(x) and enum_last(x) for x of an enum type:
// the type's first or last label, whatever x's value (PostgreSQL reads
// only its type), a constant of the labels the statement reads.
// enum_range, whose result is an array of the enum, is refused.
func (b *binder) enumCall(name string, f *pg.FuncCall, sc *scope, ctx *exprCtx) (Scalar, bool, error) {
	if name != "enum_first" && name != "enum_last" && name != "enum_range" || len(f.Funcname) > 2 || len(f.Args) == 0 || len(f.Args) > 2 {
		return nil, false, nil
	}
	var args []Scalar
	for _, a := range f.Args {
		x, err := b.expr(a, sc, ctx)
		if err != nil {
			return nil, true, err
		}
		args = append(args, x)
	}
	e := b.md.Enum(args[0].Type().OID)
	if e == nil {
		return nil, false, nil // the library's answer (42883: no such function)
	}
	if name == "enum_range" {
		return nil, true, unsupported("enum_range (an array of the enum type "+e.Name+")", f.Location)
	}
	if len(args) != 1 {
		return nil, false, nil
	}
	labels := e.Labels()
	if len(labels) == 0 {
		return nil, true, errorf("55000", "enum %s contains no values", e.Name).at(f.Location)
	}
	l := labels[0]
	if name == "enum_last" {
		l = labels[len(labels)-1]
	}
	return &Const{T: T(e.OID), Text: l.Label}, true, nil
}
