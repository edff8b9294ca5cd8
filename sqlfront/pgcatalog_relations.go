package sqlfront

import (
	"slices"
	"strconv"

	"github.com/sidecar-dev/sidecar/wal"
)

// Every relation and schema of the source database (issues 21/23): the
// copy and the catalog poll read them (wal.RelationListFacts, facts
// section 'w', replication/relmeta_relations.go; up to one poll stale
// after CREATE/DROP/ALTER), so the catalog lists what the source has
// beyond the followed tables and what the other facts list above them:
//
//   - pg_namespace lists every schema with its owner (a schema holding
//     no followed table included);
//   - pg_class lists every other relation (a standalone sequence, a
//     table outside the publication, a materialized view, a foreign
//     table, their indexes) with the columns DDL alone changes; storage,
//     statistics and the TOAST table are unknown (refused when read);
//   - pg_sequence lists every sequence's parameters (its state,
//     last_value, is not knowable at a version and is not read);
//   - pg_table_is_visible knows them, and an unqualified name resolves
//     on the search path to them as PostgreSQL does.
//
// Their pg_attribute, pg_index, pg_constraint and pg_description rows
// are not read: like the partitioned tables above followed partitions,
// they are pg_class's rows alone, and the reach proof refuses a path
// from them to those catalogs (pgcatalog_reach.go). Reading one of them
// (FROM, a sequence's state) is refused 0A000 naming it (unfollowed).

// relationList is the relation list as read (nil: not read — a record
// written before — or two tables' records disagree, between two polls'
// records).
func relationList(tables []Table) *wal.RelationListFacts {
	return carriedSection(tables, func(s *wal.SchemaFacts) *wal.RelationListFacts { return s.Relations }, (*wal.RelationListFacts).Equal) // pgcatalog_extensions.go
}

// listedOnlyRelations are the relations of the relation list pg_class
// lists from it alone: not a followed table, its index or owned
// sequence, a partitioned table above one (catalogRels), a view listed
// above one, nor a composite type's relation (pgcatalog_typedetail.go).
// nil when the relations were not read.
func listedOnlyRelations(tables []Table) []wal.RelationDetail {
	l := relationList(tables)
	if l == nil || l.Relations == nil {
		return nil
	}
	have := map[uint32]bool{}
	for _, r := range catalogRels(tables) { // pgcatalog_reg.go
		have[r.oid] = true
	}
	_, ns := (&pgCatCtx{tables: tables}).namespaces()
	for _, v := range listedViews(tables, ns) { // pgcatalog_views.go
		have[v.OID] = true
	}
	out := []wal.RelationDetail{}
	for _, r := range l.Relations {
		if !have[r.OID] && r.Kind != 'c' {
			out = append(out, r)
		}
	}
	return out
}

// listedOnlyClassRows are those relations' pg_class rows.
func listedOnlyClassRows(cx *pgCatCtx) [][]*string {
	var out [][]*string
	u := pgUnknown
	for _, r := range listedOnlyRelations(cx.tables) {
		c := r.Class
		// A relation without storage of its own has no file and no TOAST
		// table; a sequence, an index has no TOAST table. The others'
		// file and TOAST table change with TRUNCATE, VACUUM FULL, CLUSTER:
		// not read.
		file, toast := u, u
		switch r.Kind {
		case 'v', 'p', 'I', 'f':
			file, toast = sv("0"), sv("0")
		case 'S', 'i':
			toast = sv("0")
		}
		var acl *string
		if r.HasACL {
			acl = relOptions(append([]string{}, r.ACL...)) // '{}' when every privilege was revoked
		}
		var bound *string
		if c.IsPartition {
			bound = u // the partition bound is not read
		}
		out = append(out, []*string{u32(r.OID), sv(r.Name), u32(r.Namespace), u32(c.Type), u32(c.OfType), u32(r.Owner), u32(c.AM), file, u32(c.Tablespace),
			u, u, u, toast, bv(c.HasIndex), sv("f"), sv(charText(r.Persistence)), sv(charText(r.Kind)), iv(int64(c.Natts)), iv(int64(c.Checks)),
			bv(c.HasRules), bv(c.HasTrigger), bv(c.HasSubclass), bv(c.RowSecurity), bv(c.ForceRowSecurity), bv(c.IsPopulated), sv(charText(c.ReplIdent)),
			bv(c.IsPartition), sv("0"), u, u, acl, relOptions(r.RelOptions), bound})
	}
	return out
}

// listedOnlySequenceRows are those sequences' pg_sequence rows.
func listedOnlySequenceRows(cx *pgCatCtx) [][]*string {
	var out [][]*string
	i64 := func(n int64) *string { return sv(strconv.FormatInt(n, 10)) }
	for _, r := range listedOnlyRelations(cx.tables) {
		if q := r.Sequence; q != nil {
			out = append(out, []*string{u32(r.OID), u32(q.TypeOID), i64(q.Start), i64(q.Increment), i64(q.Max), i64(q.Min), i64(q.Cache), bv(q.Cycle)})
		}
	}
	return out
}

// relationNamespaces adds every schema of the relation list to
// pg_namespace's names and OIDs, in OID order.
func relationNamespaces(tables []Table, names []string, oids map[string]uint32) []string {
	if l := relationList(tables); l != nil {
		return addNamespaces(relationNamespaceList(tables, l), names, oids) // pgcatalog_extensions.go
	}
	return names
}

// relationNamespaceFacts adds every schema of the relation list to read.
func relationNamespaceFacts(tables []Table, read map[string]wal.NamespaceFacts) {
	if l := relationList(tables); l != nil {
		addNamespaceFacts(relationNamespaceList(tables, l), read)
	}
}

// relationNamespaceList is the list's schemas as namespace facts, the
// owner's name from the roles read ("": unknown).
func relationNamespaceList(tables []Table, l *wal.RelationListFacts) []wal.NamespaceFacts {
	out := make([]wal.NamespaceFacts, len(l.Namespaces))
	for i, n := range l.Namespaces {
		owner, _ := roleName(tables, n.Owner) // pgcatalog_roles.go
		out[i] = wal.NamespaceFacts{OID: n.OID, Name: n.Name, OwnerOID: n.Owner, Owner: owner}
	}
	return out
}

// listedOnlyInfoSchemaTables are information_schema.tables' rows of the
// relations listed from the relation list alone: tables, views and
// foreign tables (not materialized views, sequences or indexes; not
// other sessions' temporary tables, which information_schema leaves
// out). Whether a view or foreign table is insertable is not decided
// (unknown), nor a typed table's type.
func listedOnlyInfoSchemaTables(cx *pgCatCtx) [][]*string {
	var out [][]*string
	db := sv(cx.db)
	for _, r := range listedOnlyCatRelations(cx.tables) {
		if r.Persistence == 't' {
			continue
		}
		var kind, insertable *string
		switch r.Kind {
		case 'r', 'p':
			kind, insertable = sv("BASE TABLE"), sv("YES")
		case 'v':
			kind, insertable = sv("VIEW"), pgUnknown
		case 'f':
			kind, insertable = sv("FOREIGN"), pgUnknown
		default:
			continue
		}
		typed, typeCatalog, typeSchema, typeName := sv("NO"), (*string)(nil), (*string)(nil), (*string)(nil)
		if r.Class.OfType != 0 {
			typed, typeCatalog, typeSchema, typeName = sv("YES"), db, pgUnknown, pgUnknown
		}
		out = append(out, []*string{db, sv(r.schema), sv(r.Name), kind, nil, nil, typeCatalog, typeSchema, typeName, insertable, typed, nil})
	}
	return out
}

// listedOnlyPgTables are pg_tables' rows of the tables listed from the
// relation list alone (a tablespace other than the database's is not
// named: unknown).
func listedOnlyPgTables(cx *pgCatCtx) [][]*string {
	var out [][]*string
	for _, r := range listedOnlyCatRelations(cx.tables) {
		if r.Kind != 'r' && r.Kind != 'p' {
			continue
		}
		owner := pgUnknown
		if name, ok := roleName(cx.tables, r.Owner); ok {
			owner = sv(name)
		}
		var space *string
		if r.Class.Tablespace != 0 {
			space = pgUnknown
		}
		c := r.Class
		out = append(out, []*string{sv(r.schema), sv(r.Name), owner, space, bv(c.HasIndex), bv(c.HasRules), bv(c.HasTrigger), bv(c.RowSecurity)})
	}
	return out
}

// listedRelation is the relation schema.name of the relation list
// (false: none, or the relations were not read).
func listedRelation(tables []Table, schema, name string) (wal.RelationDetail, bool) {
	l := relationList(tables)
	if l == nil || l.Relations == nil {
		return wal.RelationDetail{}, false
	}
	nsp := uint32(0)
	for _, n := range l.Namespaces {
		if n.Name == schema {
			nsp = n.OID
		}
	}
	i := slices.IndexFunc(l.Relations, func(r wal.RelationDetail) bool { return r.Namespace == nsp && r.Name == name })
	if nsp == 0 || i < 0 {
		return wal.RelationDetail{}, false
	}
	return l.Relations[i], true
}

// relKindNames are relkinds as a refusal names them.
var relKindNames = map[byte]string{'r': "table", 'p': "partitioned table", 'v': "view", 'm': "materialized view", 'S': "sequence",
	'f': "foreign table", 'i': "index", 'I': "partitioned index", 'c': "composite type"}

// unfollowedRefusal is the refusal of a statement reading the relation
// schema.name the source has and sidecar does not follow (nil when the
// relation list has no such relation).
func unfollowedRefusal(tables []Table, schema, name string, pos int) error {
	r, ok := listedRelation(tables, schema, name)
	if !ok || r.Kind == 'v' || r.Kind == 'm' {
		return nil // views keep their own resolution and refusals (views.go)
	}
	kind := relKindNames[r.Kind]
	if kind == "" {
		kind = "relation"
	}
	hint := "add " + schema + "." + name + " to the configuration's tables list (the config key tables) to follow it"
	switch r.Kind {
	case 'S':
		hint = "a sequence's state (last_value, is_called) is not replicated: read it from PostgreSQL"
	case 'v', 'm', 'f', 'i', 'I', 'c':
		hint = "sidecar reads followed tables and the views over them"
	}
	return &Error{Code: codeUnsupported, Pos: pos, Msg: "relation \"" + schema + "." + name + "\" is not followed by sidecar (a " + kind + " of the source database)", Hint: hint}
}

// listedOnlyCatRels are the relations listedOnlyRelations lists, by
// schema and name (pg_table_is_visible's relations).
func listedOnlyCatRels(tables []Table) []catRel {
	var out []catRel
	for _, r := range listedOnlyCatRelations(tables) {
		out = append(out, catRel{r.schema, r.Name, r.OID})
	}
	return out
}

// listedRelationIn says whether the relation list has a relation name in
// schema: an unqualified name resolves to it there, as PostgreSQL's
// search of the path does (searchpath.go).
func listedRelationIn(tables []Table, schema, name string) bool {
	_, ok := listedRelation(tables, schema, name)
	return ok
}

// listedOnlyInfoSchemaColumns are the columns of the relations
// information_schema.tables lists from the relation list alone: as the
// poll read them (pgcatalog_partlists_cols.go), or, not read, one row
// of its schema and name with every other value a stand-in
// (pgcatalog.go) — a scan restricted to other tables drops it, one that
// may keep it is refused (whatever it reads: a count of the columns
// too).
func listedOnlyInfoSchemaColumns(cx *pgCatCtx, read map[[2]string][][]*string, width int) [][]*string {
	var out [][]*string
	for _, r := range listedOnlyInfoSchemaTables(cx) {
		out = append(out, columnsOrStandIn(r, read, width)...)
	}
	return out
}

// psqlKindNames are relkinds as psql's listings name them.
var psqlKindNames = map[byte]string{'r': "table", 'v': "view", 'm': "materialized view", 'i': "index", 'S': "sequence", 't': "TOAST table",
	'f': "foreign table", 'p': "partitioned table", 'I': "partitioned index"}

// listedOnlyPsqlRows are psql's \d, \dt, \ds, … rows (schema, name,
// type, owner) of the relations listed from the relation list alone
// whose relkind kinds holds and that are visible; an owner not among
// the roles read refuses the listing.
func listedOnlyPsqlRows(tables []Table, kinds map[string]bool, visible func(uint32) bool) ([][]*string, error) {
	var rows [][]*string
	for _, r := range listedOnlyCatRelations(tables) {
		if !kinds[charText(r.Kind)] || !visible(r.OID) {
			continue
		}
		owner, ok := roleName(tables, r.Owner) // pgcatalog_roles.go
		if !ok {
			return nil, unsupported(-1, "the owner of "+r.schema+"."+r.Name+" (the cluster's roles were not read)")
		}
		rows = append(rows, []*string{strp(r.schema), strp(r.Name), strp(psqlKindNames[r.Kind]), strp(owner)})
	}
	return rows, nil
}

// listedOnlyDescribeRefusal refuses psql's \d of a relation listed from
// the relation list alone matching the pattern re: PostgreSQL describes
// it, and its columns are not read (it answered "Did not find any
// relation" before).
func listedOnlyDescribeRefusal(tables []Table, re func(string) (bool, error)) error {
	for _, r := range listedOnlyCatRelations(tables) {
		if ok, err := re(r.Name); err != nil {
			return err
		} else if ok {
			return unsupported(-1, "\\d of the "+psqlKindNames[r.Kind]+" "+r.schema+"."+r.Name+" (sidecar does not follow it: its columns are not read)")
		}
	}
	return nil
}

// namedRelation is a relation of the relation list with its schema's
// name.
type namedRelation struct {
	wal.RelationDetail
	schema string
}

// listedOnlyCatRelations are listedOnlyRelations with their schemas'
// names.
func listedOnlyCatRelations(tables []Table) []namedRelation {
	l := relationList(tables)
	if l == nil {
		return nil
	}
	nsp := map[uint32]string{}
	for _, n := range l.Namespaces {
		nsp[n.OID] = n.Name
	}
	var out []namedRelation
	for _, r := range listedOnlyRelations(tables) {
		out = append(out, namedRelation{r, nsp[r.Namespace]})
	}
	return out
}

// infoSchemaSequencesRel is information_schema.sequences: every sequence
// of the database, the followed tables' owned ones and those of the
// relation list alone (PostgreSQL's own schemas hold none, so a scan
// needs no restriction). Refused while the relation list is unread
// (a sequence sidecar does not know may exist).
var infoSchemaSequencesRel = &pgRel{schema: "information_schema", name: "sequences",
	cols: pgc("sequence_catalog name, sequence_schema name, sequence_name name, data_type varchar, numeric_precision int4, " +
		"numeric_precision_radix int4, numeric_scale int4, start_value varchar, minimum_value varchar, maximum_value varchar, increment varchar, " +
		"cycle_option yes_or_no"),
	refuse: func(cx *pgCatCtx) error {
		if l := relationList(cx.tables); l == nil || l.Relations == nil {
			return unsupported(-1, "information_schema.sequences (the database's relations were not read: more than "+
				strconv.Itoa(wal.MaxListedRelations)+" relations, or a mirror copied by an older sidecar until the next catalog poll)")
		}
		return nil
	},
	rows: func(cx *pgCatCtx) [][]*string {
		_, ns := cx.namespaces()
		db := sv(cx.db)
		var out [][]*string
		add := func(schema, name string, q wal.SequenceParams) {
			typ, prec := "bigint", "64"
			switch q.TypeOID {
			case oidInt2:
				typ, prec = "smallint", "16"
			case oidInt4:
				typ, prec = "integer", "32"
			}
			i64 := func(n int64) *string { return sv(strconv.FormatInt(n, 10)) }
			cycle := sv("NO")
			if q.Cycle {
				cycle = sv("YES")
			}
			out = append(out, []*string{db, sv(schema), sv(name), sv(typ), sv(prec), sv("2"), sv("0"), i64(q.Start), i64(q.Min), i64(q.Max), i64(q.Increment), cycle})
		}
		for i := range cx.tables {
			for _, q := range listedSequences(&cx.tables[i], ns) { // pgcatalog_seq.go
				if q.Identity {
					continue // an identity column's sequence is left out
				}
				add(q.Schema, q.Name, wal.SequenceParams{TypeOID: q.TypeOID, Start: q.Start, Increment: q.Increment, Max: q.Max, Min: q.Min, Cache: q.Cache, Cycle: q.Cycle})
			}
		}
		for _, r := range listedOnlyCatRelations(cx.tables) {
			if r.Sequence != nil && !r.Identity {
				add(r.schema, r.Name, *r.Sequence)
			}
		}
		return out
	}}
