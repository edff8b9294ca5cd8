package sqlfront

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/sidecar-dev/sidecar/internal/pgident"
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// The object identifier types on the engine (sql/plan's regtypes.go):
// regclass, regtype and regnamespace read and print the names of the
// catalog sidecar serves (the followed tables, their indexes and owned
// sequences; the types it has; the schemas). A name or an OID that
// would be one of PostgreSQL's own objects sidecar does not list (a
// system catalog, a function) is refused, never answered with
// something else.

const (
	oidRegclassT     = 2205
	oidRegtypeT      = 2206
	oidRegnamespaceT = 4089
)

// catRel is a relation pg_class lists.
type catRel struct {
	schema, name string
	oid          uint32
}

// catalogRels are the relations pg_class lists: the followed tables,
// their indexes (in their table's schema) and owned sequences.
func catalogRels(tables []Table) []catRel {
	var rels []catRel
	_, ns := (&pgCatCtx{tables: tables}).namespaces()
	for i := range tables {
		t := &tables[i]
		rels = append(rels, catRel{t.Schema, t.Rel, t.OID})
		if s := schemaFactsOf(t); s != nil {
			for _, x := range s.Indexes {
				rels = append(rels, catRel{t.Schema, x.Name, x.OID})
			}
		}
		for _, q := range listedSequences(t, ns) { // pgcatalog_seq.go
			rels = append(rels, catRel{q.Schema, q.Name, q.OID})
		}
	}
	parts, _ := partitionedClasses(tables) // pgcatalog_partitioned.go
	for _, a := range parts {
		rels = append(rels, catRel{a.Schema, a.Name, a.OID})
		for _, x := range a.Indexes {
			rels = append(rels, catRel{a.Schema, x.Name, x.OID})
		}
	}
	return rels
}

// viewNamed finds the view or materialized view schema.name pg_class
// lists: its OID, or found false (none). regclass resolves a view to
// its OID (psql's \sv looks the view up so): what the OID reaches is
// proven or refused by the reach analysis (pgcatalog_reach.go:
// pg_attribute and pg_description rows of a view only where served; a
// view has no indexes or constraints), and regclass output of a view's
// OID stays refused (catalogRels lists no views). A materialized view
// is refused (resolve false): its indexes are not read, so pg_index
// would answer none for it.
func viewNamed(tables []Table, schema, name string) (oid uint32, found, resolve bool) {
	_, ns := (&pgCatCtx{tables: tables}).namespaces()
	for _, v := range listedViews(tables, ns) {
		if v.Schema == schema && v.Name == name {
			return v.OID, true, v.Kind == 'v'
		}
	}
	return 0, false, false
}

// regRefused is the refusal of a reg value sidecar's catalog does not
// hold.
func regRefused(kind uint32, what string) error {
	return unsupported(-1, lplan.RegTypeName(kind)+" of "+what+" (not an object of sidecar's catalog)")
}

// qualifiedName is stringToQualifiedNameList: dot-separated
// identifiers, unquoted ones folded to lower case.
func qualifiedName(s string) ([]string, error) {
	bad := errf("42602", -1, "invalid name syntax")
	var out []string
	for {
		s = strings.TrimLeft(s, " \t\n\r\f\v")
		var part string
		if strings.HasPrefix(s, `"`) {
			s = s[1:]
			var b strings.Builder
			for {
				i := strings.IndexByte(s, '"')
				if i < 0 {
					return nil, bad
				}
				b.WriteString(s[:i])
				s = s[i+1:]
				if !strings.HasPrefix(s, `"`) {
					break
				}
				b.WriteByte('"')
				s = s[1:]
			}
			part = b.String()
			if part == "" {
				return nil, bad
			}
		} else {
			i := strings.IndexAny(s, ". \t\n\r\f\v")
			if i < 0 {
				i = len(s)
			}
			part, s = s[:i], s[i:]
			if part == "" {
				return nil, bad
			}
			part = strings.ToLower(part) // ASCII folding, as downcase_identifier
		}
		out = append(out, part)
		s = strings.TrimLeft(s, " \t\n\r\f\v")
		if s == "" {
			return out, nil
		}
		if s[0] != '.' {
			return nil, bad
		}
		s = s[1:]
	}
}

// RegIn implements lplan.RegCatalog.
func (c *vecCatalog) RegIn(kind uint32) (*lplan.ExtFunc, error) {
	in := func(eval func(s string) (types.Value, error)) *lplan.ExtFunc {
		return &lplan.ExtFunc{Args: []lplan.Type{lplan.T(oidText)}, Result: lplan.RegType(kind), Eval: func(v []types.Value) (types.Value, error) {
			s := strings.TrimSpace(v[0].(string))
			if s == "-" {
				return int64(0), nil
			}
			if s != "" && strings.Trim(s, "0123456789") == "" {
				n, err := strconv.ParseUint(s, 10, 32)
				if err != nil {
					return nil, regRefused(kind, "'"+s+"'")
				}
				return int64(n), nil
			}
			return eval(v[0].(string))
		}}
	}
	c.stampFacts() // the names resolve through the facts (pgcatalog_stamp.go)
	tables := c.pl.src.Tables()
	path := c.searchPath()
	db := c.pl.sess.database
	switch kind {
	case oidRegclassT:
		return in(func(s string) (types.Value, error) {
			names, err := qualifiedName(s)
			if err != nil {
				return nil, err
			}
			if len(names) == 3 {
				if names[0] != db {
					return nil, errf("0A000", -1, "cross-database references are not implemented: %s", s)
				}
				names = names[1:]
			}
			if len(names) > 3 {
				return nil, errf("42601", -1, "improper relation name (too many dotted names): %s", s)
			}
			// The relations pg_class lists alone (pgcatalog_relations.go)
			// resolve too (an unfollowed table's columns are read:
			// pgcatalog_partlists_cols.go); what their OID reaches is
			// proven or refused by the reach analysis.
			rels := append(catalogRels(tables), listedOnlyCatRels(tables)...)
			if o, ok := fixedCatalogOID(names); ok { // pgcatalog_extensions.go
				return o, nil
			}
			if o, ok := catalogTableOIDs[names[len(names)-1]]; ok && len(names) == 2 && names[0] == "pg_catalog" {
				return int64(o), nil // a system catalog's fixed OID (pgcatalog_tableoid.go)
			}
			if len(names) == 2 {
				if names[0] == "pg_catalog" || names[0] == "information_schema" || names[0] == "pg_toast" {
					return nil, regRefused(kind, "'"+s+"'")
				}
				for _, r := range rels {
					if r.schema == names[0] && r.name == names[1] {
						return int64(r.oid), nil
					}
				}
				if o, found, resolve := viewNamed(tables, names[0], names[1]); resolve {
					return int64(o), nil
				} else if found {
					return nil, regRefused(kind, "the materialized view '"+s+"'")
				}
				if tn := (wal.TableName{Schema: names[0], Name: names[1]}); slices.Contains(partRootNames(c.pl.src), tn) {
					return nil, partRootLookupRefused("regclass", tn) // partmid.go
				}
				return nil, errf("42P01", -1, "relation \"%s\" does not exist", s)
			}
			if o, ok := catalogTableOIDs[names[0]]; ok && systemClassVisible(path, names[0], func(schema string) bool {
				return slices.ContainsFunc(rels, func(r catRel) bool { return r.schema == schema && r.name == names[0] })
			}) {
				// A system catalog found first (pg_catalog before the
				// schemas holding a relation of its name): its fixed OID
				// (Metabase's d.classoid = 'pg_class'::regclass).
				return int64(o), nil
			}
			if strings.HasPrefix(names[0], "pg_") || catalogDef("", names[0]) != nil {
				// pg_catalog is searched first: one of PostgreSQL's own.
				return nil, regRefused(kind, "'"+s+"'")
			}
			for _, p := range path {
				for _, r := range rels {
					if r.schema == p && r.name == names[0] {
						return int64(r.oid), nil
					}
				}
				if o, found, resolve := viewNamed(tables, p, names[0]); resolve {
					return int64(o), nil
				} else if found {
					return nil, regRefused(kind, "the materialized view '"+s+"'")
				}
				if tn := (wal.TableName{Schema: p, Name: names[0]}); slices.Contains(partRootNames(c.pl.src), tn) {
					return nil, partRootLookupRefused("regclass", tn) // partmid.go
				}
			}
			return nil, errf("42P01", -1, "relation \"%s\" does not exist", s)
		}), nil
	case oidRegtypeT:
		return in(func(s string) (types.Value, error) {
			tree, err := parseSQL("SELECT NULL::" + s) // parsedepth.go: a deep text is refused, not parsed
			if err != nil || len(tree.Stmts) != 1 {
				return nil, regRefused(kind, "'"+s+"'")
			}
			sel := tree.Stmts[0].Stmt.GetSelectStmt()
			if sel == nil || len(sel.TargetList) != 1 || sel.TargetList[0].GetResTarget().GetVal().GetTypeCast() == nil {
				return nil, regRefused(kind, "'"+s+"'")
			}
			tn := sel.TargetList[0].GetResTarget().GetVal().GetTypeCast().TypeName
			t, err := lplan.TypeOf(tn)
			if err != nil || len(tn.Typmods) > 0 {
				return nil, regRefused(kind, "'"+s+"'")
			}
			return int64(t.OID), nil
		}), nil
	case oidRegprocT:
		builtin := regprocIn(tables) // pgcatalog_regproc.go
		return in(func(s string) (types.Value, error) {
			if names, err := qualifiedName(s); err == nil {
				if v, ok, err := regprocUser(tables, path, s, names); ok { // pgcatalog_funcdef.go
					return v, err
				}
			}
			return builtin(s)
		}), nil
	case oidRegprocedureT:
		return in(regprocedureIn(tables, path)), nil // pgcatalog_funcdef.go
	case oidRegnamespaceT:
		_, ns := (&pgCatCtx{tables: tables}).namespaces()
		return in(func(s string) (types.Value, error) {
			names, err := qualifiedName(s)
			if err != nil {
				return nil, err
			}
			if len(names) != 1 {
				return nil, errf("42602", -1, "invalid name syntax")
			}
			if o, ok := ns[names[0]]; ok && o != 0 && names[0] != "information_schema" {
				return int64(o), nil
			}
			return nil, regRefused(kind, "'"+s+"'")
		}), nil
	}
	return nil, lplan.ExtError(lplan.CodeFeatureNotSupported, "type %s is not supported by sidecar's catalog yet", lplan.RegTypeName(kind))
}

// RegOut implements lplan.RegCatalog.
func (c *vecCatalog) RegOut(kind uint32) (*lplan.ExtFunc, error) {
	tables := c.pl.src.Tables()
	path := c.searchPath()
	var name func(o uint32) (types.Value, error)
	switch kind {
	case oidRegclassT:
		name = regclassNamer(tables, path)
	case oidRegtypeT:
		name = func(o uint32) (types.Value, error) {
			if n := lplan.RegTypeName(o); n != "" {
				return n, nil
			}
			if o == types.Unknown {
				return "unknown", nil
			}
			return formatTypeOf(int64(o), nil)
		}
	case oidRegprocT:
		name = regprocOut(tables) // pgcatalog_regproc.go
	case oidRegnamespaceT:
		names, ns := (&pgCatCtx{tables: tables}).namespaces()
		name = func(o uint32) (types.Value, error) {
			for _, n := range names {
				if ns[n] == o && o != 0 && n != "information_schema" {
					return pgident.Quote(n), nil
				}
			}
			return nil, regRefused(kind, "OID "+strconv.FormatUint(uint64(o), 10))
		}
	default:
		return nil, lplan.ExtError(lplan.CodeFeatureNotSupported, "type %s is not supported by sidecar's catalog yet", lplan.RegTypeName(kind))
	}
	return &lplan.ExtFunc{Args: []lplan.Type{lplan.RegType(kind)}, Result: lplan.T(oidText), Eval: func(v []types.Value) (types.Value, error) {
		o := oidValue(v[0])
		if o == 0 {
			return "-", nil
		}
		return name(o)
	}}, nil
}

// regOutputs makes the result's reg columns print their names: a
// projection over the plan applies the type's output, and the column
// is described as the reg type (its index → the reg type's OID).
func (c *vecCatalog) regOutputs(q *lplan.Query) (map[int]uint32, error) {
	var kinds map[int]uint32
	cols := q.Plan.Columns()
	exprs := make([]lplan.Scalar, len(cols))
	out := append([]lplan.ColumnID(nil), cols...)
	for i, id := range cols {
		t := q.MD.Column(id).Type
		exprs[i] = &lplan.ColRef{ID: id, T: t}
		k, ok := lplan.RegKind(t)
		if !ok {
			continue
		}
		ext, err := c.RegOut(k)
		if err != nil {
			return nil, err
		}
		if kinds == nil {
			kinds = map[int]uint32{}
		}
		kinds[i] = k
		exprs[i] = &lplan.Func{Name: lplan.RegTypeName(k) + "out", T: lplan.T(oidText), Args: []lplan.Scalar{exprs[i]}, Ext: ext}
		out[i] = q.MD.Add(lplan.ColumnMeta{Name: q.MD.Column(id).Name, Type: lplan.T(oidText)})
	}
	if kinds != nil {
		q.Plan = &lplan.Project{Input: q.Plan, Cols: out, Exprs: exprs}
	}
	return kinds, nil
}

// regVal is allVals for a reg type's value: a relabeled value is its
// operand's; 'name'::regclass of a constant is the OID it names (a
// name that fails to resolve proves nothing: refused).
func (r *reach) regVal(f *lplan.Func, depth int, konst func(string) bool, col func(colSource) bool) bool {
	switch f.Name {
	case "oid": // relabel (sql/plan's regtypes.go)
		return r.allVals(f.Args, depth+1, konst, col)
	case "regclassin":
		k, ok := strip(f.Args[0]).(*lplan.Const)
		if !ok || k.Null {
			return false
		}
		o, err := f.Ext.Eval([]types.Value{k.Text})
		n, isInt := o.(int64)
		return err == nil && isInt && konst(strconv.FormatInt(n, 10))
	}
	return false
}

// regCatalogFuncs are the functions of the object identifier types.
var regCatalogFuncs = map[string]bool{"pg_typeof": true, "pg_type_is_visible": true}

// regFunc is pg_typeof (its argument's type, a regtype) and
// pg_type_is_visible (every type sidecar serves is pg_catalog's).
func (c *vecCatalog) regFunc(name string, args []lplan.Type) (*lplan.ExtFunc, error) {
	if len(args) != 1 {
		return nil, lplan.ExtError(lplan.CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(args))
	}
	switch name {
	case "pg_typeof":
		t := args[0].OID
		if k, ok := lplan.RegKind(args[0]); ok {
			t = k
		}
		if _, ok := types.Lookup(t); !ok && t != types.Unknown && lplan.RegTypeName(t) == "" {
			return nil, lplan.ExtError(lplan.CodeFeatureNotSupported, "pg_typeof of this expression is not supported by sidecar yet")
		}
		return &lplan.ExtFunc{Args: []lplan.Type{args[0]}, Result: lplan.RegType(oidRegtypeT), NullOK: true,
			Eval: func([]types.Value) (types.Value, error) { return int64(t), nil }}, nil
	}
	tables, path := c.pl.src.Tables(), c.searchPath()
	return &lplan.ExtFunc{Args: []lplan.Type{lplan.T(oidOID)}, Result: lplan.T(oidBool), Eval: func(v []types.Value) (types.Value, error) {
		if _, ok := types.Lookup(oidValue(v[0])); ok {
			return true, nil
		}
		if vis, ok := systemTypeVisible(tables, path, oidValue(v[0])); ok {
			return vis, nil
		}
		return nil, regRefused(oidRegtypeT, "OID "+strconv.FormatUint(uint64(oidValue(v[0])), 10))
	}}, nil
}

// enumRel is pg_enum: the labels of the database's enums as read
// (enumRows, pgcatalog_usertypes.go).
var enumRel = &pgRel{schema: "pg_catalog", name: "pg_enum", cols: pgc("oid oid, enumtypid oid, enumsortorder float4, enumlabel name"), rows: enumRows}

// regclassNamer is regclass output over tables' relations under path:
// the name, schema-qualified when not visible. The relations by OID are
// built once on first use: the function runs per row (rebuilding the
// list per call made printing a regclass column quadratic in the
// relations).
func regclassNamer(tables []Table, path []string) func(o uint32) (types.Value, error) {
	vis := newVisibleSet(tables, path) // pgcatalog_plan.go
	var once sync.Once
	var byOID map[uint32]catRel
	return func(o uint32) (types.Value, error) {
		once.Do(func() {
			rels := append(catalogRels(tables), listedOnlyCatRels(tables)...) // pgcatalog_relations.go
			byOID = make(map[uint32]catRel, len(rels))
			for _, r := range rels {
				if _, ok := byOID[r.oid]; !ok {
					byOID[r.oid] = r // the first, as the list's search found it
				}
			}
		})
		if r, ok := byOID[o]; ok {
			if vis.of(o) == true {
				return pgident.Quote(r.name), nil
			}
			return pgident.Quote(r.schema) + "." + pgident.Quote(r.name), nil
		}
		return nil, regRefused(oidRegclassT, "OID "+strconv.FormatUint(uint64(o), 10))
	}
}
