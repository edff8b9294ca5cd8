package sqlfront

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/internal/pgident"
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// pg_constraint, pg_index and pg_description for the followed tables,
// from their schema facts (wal.SchemaFacts, read at copy and by the
// catalog poll), and the functions printing them. pg_class lists each
// followed table's indexes too (relkind 'i'). Values sidecar does not
// hold are unknown (a statement reading them is refused): the int2[]
// and int2vector columns (conkey, confkey, indkey: sidecar's engine has
// no arrays yet), node trees (conbin, indexprs, indpred when present),
// confrelid of a foreign key to a table sidecar does not follow, and
// every column of a table copied before its schema facts were read.
// conkey and confkey are int2[] of the attnums pg_attribute lists.

// schemaFactsOf returns t's schema facts, nil when not read.
func schemaFactsOf(t *Table) *wal.SchemaFacts {
	if t.Facts == nil {
		return nil
	}
	return t.Facts.Schema
}

// followedOID reports whether oid is a followed table.
func followedOID(tables []Table, oid uint32) bool {
	for i := range tables {
		if tables[i].OID == oid {
			return true
		}
	}
	return false
}

var schemaRels = []*pgRel{
	{schema: "pg_catalog", name: "pg_constraint", cols: pgc("oid oid, conname name, connamespace oid, contype char, condeferrable bool, " +
		"condeferred bool, convalidated bool, conrelid oid, contypid oid, conindid oid, conparentid oid, confrelid oid, confupdtype char, " +
		"confdeltype char, confmatchtype char, conislocal bool, coninhcount int4, connoinherit bool, conkey int2[], confkey int2[], conpfeqop text, " +
		"conppeqop text, conffeqop text, confdelsetcols text, conexclop text, conbin text"),
		rows: func(cx *pgCatCtx) [][]*string {
			_, ns := cx.namespaces()
			var out [][]*string
			u := pgUnknown
			for _, t := range cx.tables {
				s := schemaFactsOf(&t)
				if s == nil {
					out = append(out, []*string{u, u, u, u, u, u, u, u32(t.OID), sv("0"), u, u, u, u, u, u, u, u, u, u, u, u, u, u, u, u, u}) // a table's: contypid 0
					continue
				}
				local, inh := sv("t"), sv("0")
				if t.Facts.PartitionOf != "" || len(t.Facts.Descendants) > 0 {
					local, inh = u, u // inherited constraints are not told apart
				}
				for _, c := range s.Constraints {
					ref := u32(c.RefOID)
					if c.RefOID != 0 && !followedOID(cx.tables, c.RefOID) {
						ref = u // pg_class does not list it
					}
					fk := func(b byte) *string {
						if c.Type != 'f' {
							return sv(" ")
						}
						return sv(charText(b))
					}
					out = append(out, []*string{u32(c.OID), sv(c.Name), nsOID(ns[t.Schema]), sv(charText(c.Type)), bv(c.Deferrable), bv(c.Deferred),
						bv(c.Validated), u32(t.OID), sv("0"), u32(c.Index), sv("0"), ref, fk(c.UpdateAction), fk(c.DeleteAction), fk(c.MatchType),
						local, inh, bv(c.NoInherit), attnums(&t, c.Columns), confkey(cx.tables, &c), u, u, u, u, u, u})
				}
				if referencedElsewhere(cx.tables, s) {
					// A foreign key of a table not followed: its row is not known.
					out = append(out, []*string{u, u, u, sv("f"), u, u, u, u, sv("0"), u, u, u32(t.OID), u, u, u, u, u, u, u, u, u, u, u, u, u, u})
				}
			}
			return append(out, domainConstraintRows(cx)...) // pgcatalog_typedetail.go
		}},
	{schema: "pg_catalog", name: "pg_index", cols: pgc("indexrelid oid, indrelid oid, indnatts int2, indnkeyatts int2, indisunique bool, " +
		"indnullsnotdistinct bool, indisprimary bool, indisexclusion bool, indimmediate bool, indisclustered bool, indisvalid bool, " +
		"indcheckxmin bool, indisready bool, indislive bool, indisreplident bool, indkey int2vector, indcollation oidvector, indclass oidvector, " +
		"indoption int2vector, indexprs pg_node_tree, indpred node"),
		rows: func(cx *pgCatCtx) [][]*string {
			var out [][]*string
			u := pgUnknown
			for _, t := range cx.tables {
				s := schemaFactsOf(&t)
				if s == nil {
					out = append(out, []*string{u, u32(t.OID), u, u, u, u, u, u, u, u, u, u, u, u, u, u, u, u, u, u, u})
					continue
				}
				for _, x := range s.Indexes {
					coll, class, opt, exprs, pred := indexDetail(&x)
					out = append(out, []*string{u32(x.OID), u32(t.OID), iv(int64(len(x.Columns))), iv(int64(x.KeyColumns)), bv(x.Unique),
						bv(x.NullsNotDistinct), bv(x.Primary), bv(exclusion(s, x.OID)), bv(immediate(s, x.OID)), bv(x.Clustered), bv(x.Valid),
						sv("f"), sv("t"), sv("t"), bv(x.ReplIdent), indkey(&t, x.Columns), coll, class, opt, exprs, pred})
				}
			}
			return out
		}},
	{schema: "pg_catalog", name: "pg_description", cols: pgc("objoid oid, classoid oid, objsubid int4, description text"),
		rows: func(cx *pgCatCtx) [][]*string {
			var out [][]*string
			for _, t := range cx.tables {
				s := schemaFactsOf(&t)
				if s == nil {
					out = append(out, []*string{u32(t.OID), sv("1259"), pgUnknown, pgUnknown})
					continue
				}
				if s.Comment != "" {
					out = append(out, []*string{u32(t.OID), sv("1259"), sv("0"), sv(s.Comment)})
				}
				cols, ok := tableColumnsView(&t) // catalog_columns.go
				if !ok {
					out = append(out, []*string{u32(t.OID), sv("1259"), pgUnknown, pgUnknown})
				}
				for _, c := range cols {
					if v := c.comment(s); v != "" {
						out = append(out, []*string{u32(t.OID), sv("1259"), iv(int64(c.attnum)), sv(v)})
					}
				}
			}
			out = append(out, extensionDescriptions(cx.tables)...) // pgcatalog_extensions.go
			out = append(out, viewDescriptionRows(cx)...)          // pgcatalog_viewdesc.go
			out = append(out, typeDescriptions(cx.tables)...)      // pgcatalog_typedetail.go
			return append(out, languageDescriptions(cx)...)        // pgcatalog_listings.go
		}},
}

// referencedElsewhere says a table not followed has a foreign key to
// the table of s.
func referencedElsewhere(tables []Table, s *wal.SchemaFacts) bool {
	for _, o := range s.ReferencedBy {
		if !followedOID(tables, o) {
			return true
		}
	}
	return false
}

// ownerOID is t's relowner (unknown when not read).
func ownerOID(t *Table) *string {
	if s := schemaFactsOf(t); s != nil && s.Owner != "" {
		return u32(s.OwnerOID)
	}
	return pgUnknown
}

// ownerName is pg_get_userbyid of a role owning a followed table or a
// schema pg_namespace lists.
func ownerName(tables []Table, oid uint32) (string, bool) {
	for i := range tables {
		if s := schemaFactsOf(&tables[i]); s != nil && s.Owner != "" && s.OwnerOID == oid {
			return s.Owner, true
		}
	}
	for _, n := range (&pgCatCtx{tables: tables}).namespaceFacts() { // the schemas' owners
		if n.Owner != "" && n.OwnerOID == oid {
			return n.Owner, true
		}
	}
	return "", false
}

// exclusion says whether index oid backs an exclusion constraint.
func exclusion(s *wal.SchemaFacts, oid uint32) bool {
	for _, c := range s.Constraints {
		if c.Index == oid && c.Type == 'x' {
			return true
		}
	}
	return false
}

// immediate is indimmediate: a unique index whose uniqueness is checked
// at once (not backing a deferrable constraint).
func immediate(s *wal.SchemaFacts, oid uint32) bool {
	for _, c := range s.Constraints {
		if c.Index == oid && (c.Type == 'p' || c.Type == 'u' || c.Type == 'x') {
			return !c.Deferrable
		}
	}
	for _, x := range s.Indexes {
		if x.OID == oid {
			return x.Unique
		}
	}
	return false
}

// indexClassRows are pg_class's rows for the followed tables' indexes.
func indexClassRows(cx *pgCatCtx, ns map[string]uint32) [][]*string {
	var out [][]*string
	u := pgUnknown
	for _, t := range cx.tables {
		s := schemaFactsOf(&t)
		if s == nil {
			continue
		}
		for _, x := range s.Indexes {
			am := u
			for oid, name := range accessMethods {
				if name == x.Method {
					am = u32(oid)
				}
			}
			out = append(out, []*string{u32(x.OID), sv(x.Name), nsOID(ns[t.Schema]), sv("0"), sv("0"), ownerOID(&t), am, u, sv("0"), u, u, u, sv("0"), sv("f"), sv("f"),
				sv("p"), sv("i"), iv(int64(len(x.Columns))), sv("0"), sv("f"), sv("f"), sv("f"), sv("f"), sv("f"), sv("t"), sv("n"), u, sv("0"), u, u, u, indexRelOptions(&x), nil})
		}
	}
	return out
}

// accessMethods are pg_am's rows by OID.
var accessMethods = map[uint32]string{2: "heap", 403: "btree", 405: "hash", 783: "gist", 2742: "gin", 4000: "spgist", 3580: "brin"}

// tableSchemaFacts returns relhasindex, relchecks and relhastriggers of
// t (unknown when its schema facts were not read).
func tableSchemaFacts(tables []Table, t *Table) (hasIndex, checks, triggers *string) {
	s := schemaFactsOf(t)
	if s == nil {
		return pgUnknown, pgUnknown, pgUnknown
	}
	// relhastriggers: the internal triggers of its foreign keys (either
	// side), and the triggers psql lists (before, a table with only a
	// user trigger answered false: psql printed no "Triggers:" footer).
	n, fk := 0, len(s.ReferencedBy) > 0 || len(s.Triggers) > 0
	for _, c := range s.Constraints {
		switch c.Type {
		case 'c':
			n++
		case 'f':
			fk = true
		}
	}
	for i := range tables {
		if o := schemaFactsOf(&tables[i]); o != nil {
			for _, c := range o.Constraints {
				fk = fk || c.Type == 'f' && c.RefOID == t.OID
			}
		}
	}
	return bv(len(s.Indexes) > 0), iv(int64(n)), bv(fk)
}

// schemaFunc answers the catalog functions over the schema facts.
func (c *vecCatalog) schemaFunc(name string, args []lplan.Type) (*lplan.ExtFunc, error) {
	argc := func(n ...int) error {
		for _, k := range n {
			if len(args) == k {
				return nil
			}
		}
		return lplan.ExtError(lplan.CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(args))
	}
	tables := c.pl.src.Tables()
	path := c.defaultPath()
	oidT, textT, boolT, intT, nameT := lplan.T(oidOID), lplan.T(oidText), lplan.T(oidBool), lplan.T(oidInt4), lplan.T(oidName)
	needPath := func() error {
		if !path {
			return unsupported(-1, name+" under a search_path other than public (sidecar read the definitions under public)")
		}
		return nil
	}
	switch name {
	case "pg_get_constraintdef":
		if err := argc(1, 2); err != nil {
			return nil, err
		}
		return &lplan.ExtFunc{Args: []lplan.Type{oidT, boolT}[:len(args)], Result: textT, NullOK: true, Eval: func(v []types.Value) (types.Value, error) {
			if v[0] == nil {
				return nil, nil
			}
			oid := oidValue(v[0])
			for _, t := range tables {
				s := schemaFactsOf(&t)
				if s == nil {
					return nil, unsupported(-1, name+": the constraints of "+t.Name+" were not read (copied by an older sidecar; a resync reads them)")
				}
				for _, k := range s.Constraints {
					if k.OID == oid {
						if err := needPath(); err != nil {
							return nil, err
						}
						if len(v) == 2 && v[1] != nil && v[1].(bool) {
							return k.DefPretty, nil
						}
						return k.Def, nil
					}
				}
			}
			if def, ok := domainConstraintDef(tables, oid, len(v) == 2 && v[1] != nil && v[1].(bool)); ok { // pgcatalog_typedetail.go
				if err := needPath(); err != nil {
					return nil, err
				}
				return def, nil
			}
			return nil, nil
		}}, nil
	case "pg_get_indexdef":
		if err := argc(1, 3); err != nil {
			return nil, err
		}
		return &lplan.ExtFunc{Args: []lplan.Type{oidT, intT, boolT}[:len(args)], Result: textT, NullOK: true, Eval: func(v []types.Value) (types.Value, error) {
			for _, a := range v {
				if a == nil {
					return nil, nil
				}
			}
			oid := oidValue(v[0])
			if partitionedIndex(tables, oid) { // pgcatalog_partitioned.go
				return nil, unsupported(-1, name+" of a partitioned index (its definition is not read)")
			}
			for _, t := range tables {
				s := schemaFactsOf(&t)
				if s == nil {
					return nil, unsupported(-1, name+": the indexes of "+t.Name+" were not read (copied by an older sidecar; a resync reads them)")
				}
				for _, x := range s.Indexes {
					if x.OID != oid {
						continue
					}
					if err := needPath(); err != nil {
						return nil, err
					}
					if len(v) == 1 {
						return x.Def, nil
					}
					if n, _ := v[1].(int64); n != 0 {
						return nil, unsupported(-1, "pg_get_indexdef of one index column (sidecar keeps the whole definition)")
					}
					if v[2].(bool) {
						return x.DefPretty, nil
					}
					return x.Def, nil
				}
			}
			return nil, nil
		}}, nil
	case "obj_description":
		if err := argc(2); err != nil {
			return nil, err
		}
		return &lplan.ExtFunc{Args: []lplan.Type{oidT, nameT}, Result: textT, NullOK: true, Eval: func(v []types.Value) (types.Value, error) {
			if v[0] == nil || v[1] == nil {
				return nil, nil
			}
			if v[1].(string) == "pg_extension" {
				return extensionComment(tables, oidValue(v[0])) // pgcatalog_extensions.go
			}
			if v[1].(string) == "pg_type" {
				return typeComment(tables, oidValue(v[0])) // pgcatalog_typedetail.go
			}
			if v[1].(string) == "pg_namespace" {
				return namespaceComment(tables, oidValue(v[0])) // pgcatalog_nspdetail.go
			}
			if v[1].(string) == "pg_collation" {
				return collationComment(tables, oidValue(v[0])) // pgcatalog_typedetail.go
			}
			if v[1].(string) == "pg_proc" {
				return procComment(tables, oidValue(v[0])) // pgcatalog_procrows.go
			}
			if v[1].(string) != "pg_class" {
				return nil, unsupported(-1, "obj_description of a "+v[1].(string)+" object (sidecar keeps the comments of the followed tables and their columns)")
			}
			oid := oidValue(v[0])
			for _, t := range tables {
				s := schemaFactsOf(&t)
				if t.OID == oid {
					if s == nil {
						return nil, unsupported(-1, name+": the comments of "+t.Name+" were not read (copied by an older sidecar; a resync reads them)")
					}
					if s.Comment == "" {
						return nil, nil
					}
					return s.Comment, nil
				}
				if s != nil {
					for _, x := range s.Indexes {
						if x.OID == oid {
							return nil, unsupported(-1, "obj_description of an index (sidecar keeps the comments of the followed tables and their columns)")
						}
					}
				}
			}
			// A view's comment is read with the view (it answered NULL);
			// any other object's is not kept (an owned sequence, or an
			// object sidecar does not list: PostgreSQL's own have comments).
			_, ns := (&pgCatCtx{tables: tables}).namespaces()
			for _, vw := range listedViews(tables, ns) {
				if vw.OID == oid {
					if vw.Comment == "" {
						return nil, nil
					}
					return vw.Comment, nil
				}
			}
			return nil, unsupported(-1, fmt.Sprintf("obj_description of the object %d (sidecar keeps the comments of the followed tables, their columns and views)", oid))
		}}, nil
	case "col_description":
		if err := argc(2); err != nil {
			return nil, err
		}
		return &lplan.ExtFunc{Args: []lplan.Type{oidT, intT}, Result: textT, NullOK: true, Eval: func(v []types.Value) (types.Value, error) {
			if v[0] == nil || v[1] == nil {
				return nil, nil
			}
			oid, n := oidValue(v[0]), v[1].(int64)
			for _, t := range tables {
				if t.OID != oid {
					continue
				}
				s := schemaFactsOf(&t)
				if s == nil {
					return nil, unsupported(-1, name+": the comments of "+t.Name+" were not read (copied by an older sidecar; a resync reads them)")
				}
				cols, ok := tableColumnsView(&t) // catalog_columns.go
				if !ok {
					return nil, notCarriedUnread(name, &t)
				}
				for _, c := range cols {
					if v := c.comment(s); int64(c.attnum) == n && v != "" {
						return v, nil
					}
				}
				return nil, nil
			}
			// A view's columns' comments when read (pgcatalog_viewdesc.go);
			// an index's and PostgreSQL's own objects' are not kept (it
			// answered NULL).
			if comments, ok := viewComments(tables)[oid]; ok {
				if n >= 1 && n <= int64(len(comments)) && comments[n-1] != "" {
					return comments[n-1], nil
				}
				_, ns := (&pgCatCtx{tables: tables}).namespaces()
				for _, vw := range listedViews(tables, ns) {
					if vw.OID == oid {
						return nil, nil
					}
				}
			}
			return nil, unsupported(-1, fmt.Sprintf("col_description of the relation %d (sidecar keeps the comments of the followed tables' columns and views' columns)", oid))
		}}, nil
	case "pg_get_userbyid":
		if err := argc(1); err != nil {
			return nil, err
		}
		return &lplan.ExtFunc{Args: []lplan.Type{oidT}, Result: nameT, Eval: func(v []types.Value) (types.Value, error) {
			if name, ok := ownerName(tables, oidValue(v[0])); ok {
				return name, nil
			}
			if name, ok := roleName(tables, oidValue(v[0])); ok { // pgcatalog_roles.go
				return name, nil
			}
			if _, _, ok := clusterRoles(tables); ok {
				return fmt.Sprintf("unknown (OID=%d)", oidValue(v[0])), nil // PostgreSQL's answer for an OID no role has
			}
			return nil, unsupported(-1, "pg_get_userbyid of a role owning no followed table (sidecar keeps the followed tables' owners only)")
		}}, nil
	case "pg_get_serial_sequence":
		if err := argc(2); err != nil {
			return nil, err
		}
		sp := c.searchPath()
		return &lplan.ExtFunc{Args: []lplan.Type{textT, textT}, Result: textT, Eval: func(v []types.Value) (types.Value, error) {
			if err := needPath(); err != nil {
				return nil, err
			}
			rel, col := v[0].(string), v[1].(string)
			t, err := lookupTableText(tables, sp, rel)
			if err != nil {
				return nil, err
			}
			s := schemaFactsOf(t)
			if s == nil {
				return nil, unsupported(-1, name+": the sequences of "+t.Name+" were not read (copied by an older sidecar; a resync reads them)")
			}
			cols, ok := tableColumnsView(t) // catalog_columns.go
			if !ok {
				return nil, notCarriedUnread(name, t)
			}
			for _, c := range cols {
				if c.Name == col {
					if q := c.sequence(s); q != "" {
						return q, nil
					}
					return nil, nil
				}
			}
			return nil, errf("42703", -1, "column %q of relation %q does not exist", col, t.Rel)
		}}, nil
	}
	return nil, nil
}

// lookupTableText resolves a table name as regclass input reads it
// (possibly schema-qualified, quoted identifiers kept as written) among
// the followed tables, along the search path.
func lookupTableText(tables []Table, path []string, name string) (*Table, error) {
	tn, err := pgident.ParseTable(name)
	if err != nil {
		return nil, errf("42602", -1, "invalid name syntax")
	}
	var parts []string
	if _, err := pgident.ParseTable(`"sidecar probe".` + name); err == nil {
		parts = []string{tn.Name} // not schema-qualified
	} else {
		parts = []string{tn.Schema, tn.Name}
	}
	find := func(schema, rel string) *Table {
		for i := range tables {
			if tables[i].Schema == schema && tables[i].Rel == rel {
				return &tables[i]
			}
		}
		return nil
	}
	if len(parts) == 2 {
		if t := find(parts[0], parts[1]); t != nil {
			return t, nil
		}
	} else {
		for _, p := range path {
			if t := find(p, parts[0]); t != nil {
				return t, nil
			}
		}
	}
	return nil, errf("42P01", -1, "relation %q does not exist", strings.Join(parts, "."))
}

// attnums is an int2[] of t's columns named in names, as pg_attribute
// numbers them (unknown when one is not a column of t, or none is named:
// the facts do not tell a NULL conkey from an empty one).
func attnums(t *Table, names []string) *string {
	if len(names) == 0 {
		return pgUnknown
	}
	nums := make([]string, len(names))
	for i, n := range names {
		a, ok := columnAttnum(t, n) // catalog_columns.go
		if !ok {
			return pgUnknown
		}
		nums[i] = strconv.Itoa(int(a))
	}
	return sv("{" + strings.Join(nums, ",") + "}")
}

// confkey is a foreign key's confkey (NULL for other constraints;
// unknown when the referenced table is not followed).
func confkey(tables []Table, c *wal.ConstraintFacts) *string {
	if c.Type != 'f' {
		return nil
	}
	for i := range tables {
		if tables[i].OID == c.RefOID {
			return attnums(&tables[i], c.RefColumns)
		}
	}
	return pgUnknown
}

// indkey is an index's pg_index.indkey: the attnums pg_attribute gives
// its columns, 0 for an expression (unknown when a column is not one of
// t's).
func indkey(t *Table, cols []string) *string {
	nums := make([]string, len(cols))
	for i, n := range cols {
		if n == "" {
			nums[i] = "0"
			continue
		}
		a, ok := columnAttnum(t, n) // catalog_columns.go
		if !ok {
			return pgUnknown
		}
		nums[i] = strconv.Itoa(int(a))
	}
	return sv(strings.Join(nums, " "))
}

// indexDetail is an index's indcollation, indclass, indoption, indexprs
// and indpred (unknown when its detail was not read; indpred as
// pg_attrdef.adbin holds its default: pg_get_expr's two forms).
func indexDetail(x *wal.IndexFacts) (coll, class, opt, exprs, pred *string) {
	d := x.Detail
	if d == nil {
		u := pgUnknown
		exprs, pred = u, u
		if !x.Expressions {
			exprs = nil
		}
		if !x.Partial {
			pred = nil
		}
		return u, u, u, exprs, pred
	}
	coll, class, opt = sv(d.Collations), sv(d.Classes), sv(d.Options)
	if d.Exprs != "" {
		exprs = sv(d.Exprs)
	}
	if d.Pred != "" {
		pred = sv(d.Pred + nodeTreeSep + d.PredPretty)
	}
	return coll, class, opt, exprs, pred
}

// indexRelOptions is an index's pg_class.reloptions (unknown when its
// detail was not read).
func indexRelOptions(x *wal.IndexFacts) *string {
	if x.Detail == nil {
		return pgUnknown
	}
	return relOptions(x.Detail.RelOptions)
}

// tableRelOptions is a followed table's pg_class.reloptions (unknown
// when not read).
func tableRelOptions(t *Table) *string {
	s := schemaFactsOf(t)
	if s == nil || !s.OptionsRead {
		return pgUnknown
	}
	return relOptions(s.Options)
}

// relOptions is reloptions as text[]'s text (nil: NULL).
func relOptions(opts []string) *string {
	if opts == nil {
		return nil
	}
	a := &types.Array{Elem: types.Text, Elems: make([]types.Value, len(opts))}
	for i, o := range opts {
		a.Elems[i] = o
	}
	return sv(string(types.AppendOut(nil, types.ArrayOf(types.Text), a)))
}
