package sqlfront

import (
	"slices"
	"strconv"

	"github.com/sidecar-dev/sidecar/internal/pgident"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// The database's own domains and enums (wal.UserTypeFacts, read by the
// copy and the catalog poll with the schemas, carried by one table):
// pg_type lists them and their arrays beside the served types and
// information_schema's domains, pg_enum their labels, pg_namespace their
// schemas; format_type and pg_type_is_visible answer for them. Like the
// other facts they are up to one poll (~2 s) stale after CREATE/DROP
// TYPE or DOMAIN; a followed column whose type is neither built-in nor
// listed (created after the last read) makes the listings that would
// have to include it refused.

// userTypes are the database's domains and enums as read (nil: not
// read — a record written before, more than wal.MaxUserTypes — or two
// tables' records disagree, between two polls' records).
func userTypes(tables []Table) *wal.UserTypeFacts {
	return carriedSection(tables, func(s *wal.SchemaFacts) *wal.UserTypeFacts { return s.UserTypes }, (*wal.UserTypeFacts).Equal) // pgcatalog_extensions.go
}

// listedTypes are the pg_type rows beside the served built-in types:
// information_schema's domains and their arrays, then the database's
// domains and enums and theirs, then its other types and theirs
// (pgcatalog_typedetail.go).
func listedTypes(tables []Table) []wal.TypeFacts {
	sys := systemTypes(tables)
	if u := userTypes(tables); u != nil {
		out := append(slices.Clip(sys), u.Types...)
		for _, o := range otherTypes(tables) {
			out = append(out, o.TypeFacts)
		}
		return out
	}
	return sys
}

// listedTypeRow is t's pg_type row.
func listedTypeRow(t wal.TypeFacts) []*string {
	u := pgUnknown
	var def, defBin *string
	if t.HasDefault {
		def, defBin = sv(t.Default), u
	}
	row := []*string{u32(t.OID), sv(t.Name), u32(t.Namespace), u32(t.Owner), iv(int64(t.Len)), bv(t.ByVal), sv(charText(t.Type)),
		sv(charText(t.Category)), sv("f"), sv("t"), sv(charText(t.Delim)), sv("0"), u, u32(t.Elem), u32(t.Array)}
	return append(append(row, systemTypeIORow(t)...), // pgcatalog_regproc.go: typinput … typanalyze
		sv(charText(t.Align)), sv(charText(t.Storage)), bv(t.NotNull), u32(t.BaseType), iv(int64(t.TypMod)), iv(int64(t.NDims)), u32(t.Collation),
		defBin, def, u)
}

// typeKnown says whether a followed column's type OID is one whose
// pg_type row is known not to be missing from a domain or enum listing:
// a built-in type (OID below 16384: never a user domain or enum) or a
// listed one. Another is a type created after the last read, or a user
// type of another kind (composite, range) the read does not list.
func typeKnown(oid uint32, listed map[uint32]bool) bool {
	return oid < 16384 || listed[oid]
}

// columnTypesKnown says whether every followed column's type is
// typeKnown.
func columnTypesKnown(tables []Table) bool {
	listed := map[uint32]bool{}
	for _, t := range listedTypes(tables) {
		listed[t.OID] = true
	}
	for i := range tables {
		cols, ok := tableColumnsView(&tables[i]) // catalog_columns.go: the generated columns' types too
		if !ok {
			return false
		}
		for _, c := range cols {
			if !typeKnown(c.TypeOID, listed) {
				return false
			}
		}
	}
	return true
}

// enumRows are pg_enum's rows: the labels of the enums read, by OID;
// one unknown row when they were not read or a followed column's type
// is not known (an enum created after the read, maybe): reading pg_enum
// is then refused.
func enumRows(cx *pgCatCtx) [][]*string {
	u := userTypes(cx.tables)
	if u == nil || !columnTypesKnown(cx.tables) {
		return [][]*string{{pgUnknown, pgUnknown, pgUnknown, pgUnknown}}
	}
	var out [][]*string
	for _, l := range u.Labels {
		out = append(out, []*string{u32(l.OID), u32(l.TypeOID), sv(strconv.FormatFloat(float64(l.SortOrder), 'g', -1, 32)), sv(l.Label)})
	}
	return out
}

// userTypeNamespaces adds the schemas of the user types read to
// pg_namespace's names and OIDs (those not listed already).
func userTypeNamespaces(tables []Table, names []string, oids map[string]uint32) []string {
	if u := userTypes(tables); u != nil {
		return addNamespaces(u.Namespaces, names, oids) // pgcatalog_extensions.go
	}
	return names
}

// userTypeNamespaceFacts adds the user types' schemas to read.
func userTypeNamespaceFacts(tables []Table, read map[string]wal.NamespaceFacts) {
	if u := userTypes(tables); u != nil {
		addNamespaceFacts(u.Namespaces, read)
	}
}

// userTypeVisible is pg_type_is_visible of a user type read (ok false
// for another OID): whether its schema is the first on the search path
// (pg_catalog first when the path does not name it) holding a type of
// its name — a listed type, a namesake the read saw (a table's row type,
// a built-in type), or a followed relation's row type.
func userTypeVisible(tables []Table, path []string, oid uint32) (vis bool, ok bool) {
	u := userTypes(tables)
	if u == nil {
		return false, false
	}
	var t *wal.TypeFacts
	nsName := map[uint32]string{}
	for _, n := range u.Namespaces {
		nsName[n.OID] = n.Name
	}
	all, namesakes := u.Types, u.Namesakes
	if d := typeDetail(tables); d != nil && len(d.Types) > 0 { // pgcatalog_typedetail.go: the other types
		all = slices.Clone(all)
		for _, o := range d.Types {
			all = append(all, o.TypeFacts)
		}
		for _, n := range d.Namespaces {
			nsName[n.OID] = n.Name
		}
		namesakes = append(slices.Clone(namesakes), d.Namesakes...)
	}
	for i := range all {
		if all[i].OID == oid {
			t = &all[i]
		}
	}
	if t == nil || nsName[t.Namespace] == "" {
		return false, false
	}
	own := nsName[t.Namespace]
	if !slices.Contains(path, "pg_catalog") {
		path = append([]string{"pg_catalog"}, path...)
	}
	rels := catalogRels(tables)
	for _, p := range path {
		if p == own {
			return true, true
		}
		for _, o := range all {
			if o.Name == t.Name && nsName[o.Namespace] == p {
				return false, true
			}
		}
		for _, n := range namesakes {
			if n.Name == t.Name && n.Namespace == p {
				return false, true
			}
		}
		for _, r := range rels {
			if r.schema == p && (r.name == t.Name || "_"+r.name == t.Name) {
				return false, true
			}
		}
	}
	return false, true
}

// formatListedType is format_type of one of the types pg_type lists
// beside the served ones (information_schema's domains, the database's
// domains and enums, their arrays; ok false for another OID): the name,
// schema-qualified when not visible as format_type_extended does, "[]"
// after an array's element; a typmod given (printed by PostgreSQL as
// "(n)") is refused.
func formatListedType(tables []Table, path []string, oid uint32, modv types.Value) (types.Value, bool, error) {
	all := listedTypes(tables)
	byOID := map[uint32]*wal.TypeFacts{}
	for i := range all {
		byOID[all[i].OID] = &all[i]
	}
	t := byOID[oid]
	if t == nil {
		return nil, false, nil
	}
	given := false
	switch m := modv.(type) {
	case int64:
		given = m >= 0
	case int32:
		given = m >= 0
	}
	if given {
		return nil, true, unsupported(-1, "format_type of "+t.Name+" with a typmod")
	}
	name, array := t.Name, ""
	if t.Elem != 0 && t.Category == 'A' {
		e := byOID[t.Elem]
		if e == nil || e.Array != t.OID {
			return nil, true, unsupported(-1, "format_type of type "+t.Name)
		}
		name, array, oid = e.Name, "[]", e.OID
	}
	vis, ok := systemTypeVisible(tables, path, oid) // pgcatalog_types.go: user types too
	if !ok {
		return nil, true, unsupported(-1, "format_type of "+name+" (whether it is visible on the search path)")
	}
	out := pgident.Quote(name)
	if !vis.(bool) {
		schema := ""
		for _, n := range (&pgCatCtx{tables: tables}).namespaceFacts() {
			if n.OID == byOID[oid].Namespace {
				schema = n.Name
			}
		}
		if schema == "" {
			return nil, true, unsupported(-1, "format_type of "+name+" (its schema was not read)")
		}
		out = pgident.Quote(schema) + "." + out
	}
	return out + array, true, nil
}
