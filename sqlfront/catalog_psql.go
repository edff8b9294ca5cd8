package sqlfront

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// canned answers one recognised catalog query from the mirror's
// relations; consts are the statement's string literals in order.
type canned struct {
	// byOID: the query describes the relation whose OID it names; one
	// that is not a followed table is refused when PostgreSQL would
	// describe it (describedOther).
	byOID bool
	cols  []string
	rows  func(ex *execCtx, consts []string) ([][]*string, error)
}

var (
	psqlOnce    sync.Once
	psqlByPrint map[string]*canned
)

// cannedFor returns the answer for a psql catalog query, or nil.
func cannedFor(query string) *canned {
	if !strings.Contains(query, "pg_catalog") {
		return nil
	}
	psqlOnce.Do(func() {
		psqlByPrint = map[string]*canned{}
		for name, q := range psqlQueries {
			fp, err := pg.Fingerprint(q)
			if err == nil && psqlHandlers[name] != nil {
				psqlByPrint[fp] = psqlHandlers[name]
			}
		}
		for name, q := range psqlSchemaQueries { // psql_queries_schema.go
			if fp, err := pg.Fingerprint(q); err == nil {
				psqlByPrint[fp] = psqlSchemaHandlers[name]
			}
		}
		for name, q := range psqlExtensionQueries { // pgcatalog_extensions.go
			if fp, err := pg.Fingerprint(q); err == nil {
				psqlByPrint[fp] = psqlExtensionHandlers[name]
			}
		}
		for name, q := range psqlIndexQueries { // catalog_psql_index.go
			if fp, err := pg.Fingerprint(q); err == nil {
				psqlByPrint[fp] = psqlIndexHandlers[name]
			}
		}
		for name, q := range psqlPartitionQueries { // catalog_partitions.go
			if fp, err := pg.Fingerprint(q); err == nil {
				psqlByPrint[fp] = psqlPartitionHandlers[name]
			}
		}
		for name, q := range psqlCastQueries { // psql_casts.go
			if fp, err := pg.Fingerprint(q); err == nil {
				psqlByPrint[fp] = psqlCastHandlers[name]
			}
		}
	})
	// Fingerprinting parses and walks the tree in C, recursively: a
	// statement too deep for that overflowed the C stack (a SIGSEGV
	// that took the daemon down, issue 21). No psql query is that deep;
	// the planner refuses it (parsedepth.go).
	if checkParseDepth(query) != nil {
		return nil
	}
	fp, err := pg.Fingerprint(query)
	if err != nil {
		return nil
	}
	return psqlByPrint[fp]
}

var literalRe = regexp.MustCompile(`'((?:[^']|'')*)'`)

// literals returns the string literals of query in order.
func literals(query string) []string {
	var out []string
	for _, m := range literalRe.FindAllStringSubmatch(query, -1) {
		out = append(out, strings.ReplaceAll(m[1], "''", "'"))
	}
	return out
}

// oidLiteral is the first all-digits literal (psql quotes OIDs).
func oidLiteral(consts []string) uint32 {
	for _, c := range consts {
		if n, err := strconv.ParseUint(c, 10, 32); err == nil {
			return uint32(n)
		}
	}
	return 0
}

func tableByOID(ex *execCtx, oid uint32) *Table {
	for _, t := range ex.src.Tables() {
		if t.OID == oid {
			return &t
		}
	}
	return nil
}

// formatType is format_type(atttypid, atttypmod).
func formatType(c Column) string {
	mod := c.TypeMod
	switch c.TypeOID {
	case oidNumeric:
		if mod >= 4 {
			m := mod - 4
			return "numeric(" + strconv.Itoa(int(m>>16)) + "," + strconv.Itoa(int(m&0xffff)) + ")"
		}
	case oidVarchar, oidBpchar:
		if mod >= 4 {
			return typeName(c.TypeOID) + "(" + strconv.Itoa(int(mod-4)) + ")"
		}
	case oidTimestamp, oidTimestamptz:
		if mod >= 0 {
			tz := "without"
			if c.TypeOID == oidTimestamptz {
				tz = "with"
			}
			return "timestamp(" + strconv.Itoa(int(mod)) + ") " + tz + " time zone"
		}
	}
	if strings.HasPrefix(typeName(c.TypeOID), "type ") {
		return c.TypeName
	}
	return typeName(c.TypeOID)
}

// relList answers psql's \dt, \dm and \d (no pattern), whose texts
// differ only in the relkinds listed (their fingerprints are the same): the
// constants after the CASE's last one ('partitioned index') up to
// 'pg_catalog' are the IN list. \d lists the followed tables' owned
// sequences (a serial or identity column) too: one pg_class does not
// list (not read: copied by an older sidecar) refuses the list rather
// than answer without it.
func relList(ex *execCtx, consts []string) ([][]*string, error) {
	kinds := map[string]bool{}
	if i := slices.Index(consts, "partitioned index"); i >= 0 {
		for _, k := range consts[i+1:] {
			if k == "pg_catalog" {
				break
			}
			kinds[k] = true
		}
	}
	for k := range kinds {
		switch k {
		case "r", "p", "v", "m", "S", "f", "": // foreign tables: the database is assumed to hold none, as before
		default: // indexes and TOAST tables are not listed
			return nil, unsupported(-1, "this psql listing (relkind '"+k+"')")
		}
	}
	tables := ex.src.Tables()
	_, ns := (&pgCatCtx{tables: tables}).namespaces()
	// pg_table_is_visible(c.oid): the relations a search of the path
	// finds (a followed table of a schema off the path was listed).
	vis := newVisibleSet(tables, searchPathOf(ex.sess))
	visible := func(oid uint32) bool { v, _ := vis.of(oid).(bool); return v }
	var rows [][]*string
	if kinds["p"] {
		// The partitioned tables above the followed partitions
		// (pgcatalog_partitioned.go).
		if err := partitionedUnread(tables, "listing partitioned tables"); err != nil {
			return nil, err
		}
		parts, _ := partitionedClasses(tables)
		for _, a := range parts {
			if visible(a.OID) {
				rows = append(rows, []*string{strp(a.Schema), strp(a.Name), strp("partitioned table"), strp(a.Owner)})
			}
		}
	}
	for i := range tables {
		t := &tables[i]
		s := schemaFactsOf(t)
		if s == nil || s.Owner == "" {
			return nil, unsupported(-1, "the owner of "+t.Name+" (not read: copied by an older sidecar; a resync reads it)")
		}
		if kinds[relKind(t)] && visible(t.OID) {
			rows = append(rows, []*string{strp(t.Schema), strp(t.Rel), strp(relKindName(t)), strp(s.Owner)})
		}
		if !kinds["S"] {
			continue
		}
		if q := unlistedSequences(t, ns); len(q) > 0 { // pgcatalog_seq.go
			return nil, unsupported(-1, "listing the sequence "+q[0]+" (owned by "+t.Name+"; its facts were not read: copied by an older sidecar, a resync reads them)").
				hint(`\dt lists the tables`)
		}
		for _, q := range listedSequences(t, ns) {
			if visible(q.OID) {
				rows = append(rows, []*string{strp(q.Schema), strp(q.Name), strp("sequence"), strp(s.Owner)})
			}
		}
	}
	// The views above the followed tables (pgcatalog_views.go), as psql
	// lists them when its relkinds name them (\d lists 'v' and 'm').
	for _, v := range listedViews(tables, ns) {
		kind := "view"
		if v.Kind == 'm' {
			kind = "materialized view"
		}
		if !kinds[string(v.Kind)] || !visible(v.OID) {
			continue
		}
		if v.Owner == "" {
			return nil, unsupported(-1, "the owner of the view "+v.Schema+"."+v.Name+" (not read)")
		}
		rows = append(rows, []*string{strp(v.Schema), strp(v.Name), strp(kind), strp(v.Owner)})
	}
	more, err := listedOnlyPsqlRows(tables, kinds, visible) // pgcatalog_relations.go
	if err != nil {
		return nil, err
	}
	rows = append(rows, more...)
	// ORDER BY 1, 2 (name's collation is C: byte order).
	sort.SliceStable(rows, func(i, j int) bool {
		if *rows[i][0] != *rows[j][0] {
			return *rows[i][0] < *rows[j][0]
		}
		return *rows[i][1] < *rows[j][1]
	})
	return rows, nil
}

// relKindName is psql's name of t's relkind.
func relKindName(t *Table) string {
	if relKind(t) == "p" {
		return "partitioned table"
	}
	return "table"
}

func none(*execCtx, []string) ([][]*string, error) { return nil, nil }

// psqlHandlers answer the queries of psqlQueries by name.
var psqlHandlers = map[string]*canned{
	"dt":    {cols: []string{"Schema:name@pg_namespace.nspname", "Name:name@pg_class.relname", "Type", "Owner:name"}, rows: relList},
	"dlist": {cols: []string{"Schema:name@pg_namespace.nspname", "Name:name@pg_class.relname", "Type", "Owner:name"}, rows: relList},
	"doid": {cols: []string{"oid:oid@pg_class.oid", "nspname:name@pg_namespace.nspname", "relname:name@pg_class.relname"}, rows: func(ex *execCtx, consts []string) ([][]*string, error) {
		pat := ""
		for _, c := range consts {
			if strings.HasPrefix(c, "^(") {
				pat = c
				break
			}
		}
		re, err := psqlPattern(pat)
		if err != nil {
			return nil, err
		}
		var rows [][]*string
		tables := ex.src.Tables()
		_, ns := (&pgCatCtx{tables: tables}).namespaces()
		vis := newVisibleSet(tables, searchPathOf(ex.sess)) // pg_table_is_visible(c.oid)
		for i := range tables {
			t := &tables[i]
			if ok, err := re(t.Rel); err != nil {
				return nil, err
			} else if ok && vis.of(t.OID) == true {
				rows = append(rows, []*string{u32(t.OID), strp(t.Schema), strp(t.Rel)})
			}
			// \d of an index or a sequence describes it on PostgreSQL:
			// refused, not "Did not find any relation".
			others := unlistedSequences(t, ns)
			for _, q := range listedSequences(t, ns) {
				others = append(others, q.Name)
			}
			if s := schemaFactsOf(t); s != nil {
				for _, x := range s.Indexes {
					if ix, _, _ := indexColumns(tables, x.OID); ix == nil { // catalog_psql_index.go describes it
						others = append(others, x.Name)
					} else if ok, err := re(x.Name); err != nil {
						return nil, err
					} else if ok {
						rows = append(rows, []*string{u32(x.OID), strp(t.Schema), strp(x.Name)})
					}
				}
			}
			for _, o := range others {
				if ok, err := re(o); err != nil || ok {
					if err != nil {
						return nil, err
					}
					return nil, unsupported(-1, "\\d of the index or sequence "+o+" (sidecar's psql support describes tables)")
				}
			}
		}
		// A partitioned table (a followed root, a level below one):
		// described from facts section 'C', refused when they were not
		// read (psql_partdescribe.go).
		parts, err := partDescribeLookup(ex, re, func(oid uint32) bool { return vis.of(oid) == true })
		if err != nil {
			return nil, err
		}
		rows = append(rows, parts...)
		if err := partIndexDescribeRefusal(tables, re); err != nil { // psql_partindex.go
			return nil, err
		}
		if err := listedOnlyDescribeRefusal(tables, re); err != nil { // pgcatalog_relations.go
			return nil, err
		}
		// A view is described by PostgreSQL too: refused, not "Did not
		// find any relation".
		for _, v := range listedViews(tables, ns) {
			if ok, err := re(v.Name); err != nil || ok {
				if err != nil {
					return nil, err
				}
				return nil, unsupported(-1, "\\d of the view "+v.Schema+"."+v.Name+" (sidecar's psql support describes tables)")
			}
		}
		sort.SliceStable(rows, func(i, j int) bool { // ORDER BY 2, 3
			if *rows[i][1] != *rows[j][1] {
				return *rows[i][1] < *rows[j][1]
			}
			return *rows[i][2] < *rows[j][2]
		})
		return rows, nil
	}},
	// tableInfo describes indexes too (indexInfo) and refuses the rest
	// itself (describedOther): not byOID.
	"dinfo":     {cols: dinfoCols, rows: func(ex *execCtx, consts []string) ([][]*string, error) { return tableInfo(ex, consts, false) }},
	"dinfoplus": {cols: dinfoPlusCols, rows: func(ex *execCtx, consts []string) ([][]*string, error) { return tableInfo(ex, consts, true) }},
	"dcols": {byOID: true, cols: []string{"attname:name@pg_attribute.attname", "format_type", "pg_get_expr", "attnotnull:bool@pg_attribute.attnotnull", "attcollation:name",
		"attidentity:char@pg_attribute.attidentity", "attgenerated:char@pg_attribute.attgenerated"},
		rows: func(ex *execCtx, consts []string) ([][]*string, error) { return tableColumns(ex, consts, false) }},
	"dcolsplus": {byOID: true, cols: []string{"attname:name@pg_attribute.attname", "format_type", "pg_get_expr", "attnotnull:bool@pg_attribute.attnotnull", "attcollation:name",
		"attidentity:char@pg_attribute.attidentity", "attgenerated:char@pg_attribute.attgenerated", "attstorage:char@pg_attribute.attstorage",
		"attcompression:char@pg_attribute.attcompression", "attstattarget:attstattarget", "col_description"},
		rows: func(ex *execCtx, consts []string) ([][]*string, error) { return tableColumns(ex, consts, true) }},
	"dstats": {byOID: true, cols: []string{"oid:oid@pg_statistic_ext.oid", "stxrelid:regclass", "nsp", "stxname:name@pg_statistic_ext.stxname", "columns", "ndist_enabled:bool", "deps_enabled:bool",
		"mcv_enabled:bool", "stxstattarget:stattarget@pg_statistic_ext.stxstattarget"}, rows: func(ex *execCtx, consts []string) ([][]*string, error) {
		if s := storageFactsOf(ex, consts); s != nil && s.StatisticsObjects > 0 {
			return nil, unsupported(-1, "the extended statistics objects of "+tableByOID(ex, oidLiteral(consts)).Name+" (not read from the server)")
		}
		return nil, nil
	}},
	"dpubs":     {byOID: true, cols: []string{"pubname:name", "?column?", "?column?"}, rows: publicationFooter(true)},                                                                     // pgcatalog_publications.go
	"dpubs14":   {byOID: true, cols: []string{"pubname:name", "?column?", "?column?"}, rows: publicationFooter(false)},                                                                    // pgcatalog_publications.go
	"dinherits": {byOID: true, cols: []string{"oid:regclass"}, rows: inheritsRows},                                                                                                        // pgcatalog_partitioned.go
	"dparts":    {byOID: true, cols: []string{"oid:regclass", "relkind:char@pg_class.relkind", "inhdetachpending:bool@pg_inherits.inhdetachpending", "pg_get_expr"}, rows: partitionRows}, // pgcatalog_partitioned.go
}

// psqlMatcher matches names against one psql pattern.
type psqlMatcher func(name string) (bool, error)

// psqlPattern is a psql name pattern (c.relname ~ '^(…)$'): run by the
// function library's ~ (sql/builtin: PostgreSQL's ARE where Go's
// regexp agrees, refused elsewhere), not by Go's regexp, whose syntax
// and classes differ. A pattern the library refuses is refused.
func psqlPattern(pat string) (psqlMatcher, error) {
	tx := uint32(oidText)
	call, err := builtins().Resolve("textregexeq", []uint32{tx, tx})
	if err != nil {
		return nil, builtinErr(err, -1)
	}
	m := func(name string) (bool, error) {
		v, err := call.Eval(&builtin.Context{}, []types.Value{name, pat})
		if err != nil {
			return false, builtinErr(err, -1)
		}
		return v == true, nil
	}
	if _, err := m(""); err != nil {
		return nil, err
	}
	return m, nil
}

// cannedPlan is the plan of a recognised catalog query, its columns
// described as PostgreSQL describes them (catalog_canned_types.go) for
// the followed server's version.
func cannedPlan(c *canned, query string, version int) (*plan, error) {
	consts := literals(query)
	p := &plan{kind: "select", tag: "SELECT", noRows: false}
	var cols []Column
	for i, spec := range c.cols {
		cc, err := cannedColumn(spec, version) // catalog_canned_types.go
		if err != nil {
			return nil, err
		}
		cols = append(cols, col(cc.name, cc.typ))
		p.cols = append(p.cols, outCol{name: cc.name, typ: cc.typ, typmod: -1, tableOID: cc.tableOID, attnum: cc.attnum})
		p.targets = append(p.targets, &colExpr{idx: i, t: cc.typ})
	}
	p.from = []*fromItem{{virt: &virtual{cols: cols, rows: func(ex *execCtx) ([][]*string, error) {
		if oid := oidLiteral(consts); c.byOID && tableByOID(ex, oid) == nil {
			if err := describedOther(ex, oid, "\\d"); err != nil { // pgcatalog_partitioned.go
				return nil, err
			}
		}
		return c.rows(ex, consts)
	}}}}
	return p, nil
}

// dinfoCols and dinfoPlusCols are the columns of psql's \d and \d+
// table queries (the 10th is reloptions' text under \d+).
var dinfoCols = []string{"relchecks:int2@pg_class.relchecks", "relkind:char@pg_class.relkind", "relhasindex:bool@pg_class.relhasindex",
	"relhasrules:bool@pg_class.relhasrules", "relhastriggers:bool@pg_class.relhastriggers", "relrowsecurity:bool@pg_class.relrowsecurity",
	"relforcerowsecurity:bool@pg_class.relforcerowsecurity", "relhasoids:bool", "relispartition:bool@pg_class.relispartition", "?column?",
	"reltablespace:oid@pg_class.reltablespace", "reloftype", "relpersistence:char@pg_class.relpersistence", "relreplident:char@pg_class.relreplident",
	"amname:name@pg_am.amname"}

var dinfoPlusCols = slices.Concat(dinfoCols[:9], []string{"array_to_string"}, dinfoCols[10:])

// storageFactsOf is the schema facts of the table whose OID the query
// names, when its \d+ facts were read (nil otherwise: a record written
// before them).
func storageFactsOf(ex *execCtx, consts []string) *wal.SchemaFacts {
	t := tableByOID(ex, oidLiteral(consts))
	if t == nil {
		return nil
	}
	if s := schemaFactsOf(t); s != nil && s.StorageRead {
		return s
	}
	return nil
}

// tableInfo answers psql's \d (verbose false) and \d+ table query:
// \d+ also reads the reloptions (the table's and its TOAST table's) and
// relreplident, which the copy and the catalog poll read with the \d+
// facts (a record without them refuses \d+).
func tableInfo(ex *execCtx, consts []string, verbose bool) ([][]*string, error) {
	t := tableByOID(ex, oidLiteral(consts))
	if t == nil {
		if rows, err := indexInfo(ex, consts, verbose); rows != nil || err != nil {
			return rows, err // catalog_psql_index.go
		}
		return nil, describedOther(ex, oidLiteral(consts), "\\d") // pgcatalog_partitioned.go
	}
	hasIndex, checks, triggers := tableSchemaFacts(ex.src.Tables(), t)
	if hasIndex == pgUnknown {
		return nil, unsupported(-1, "\\d of "+t.Name+": its constraints and indexes were not read (copied by an older sidecar; a resync reads them)")
	}
	if cloned, err := partitionClonedTriggers(ex, t); err != nil { // psql_partdescribe.go
		return nil, err
	} else if cloned {
		triggers = strp("t")
	}
	rls, force, options, replident := "f", "f", "", "d"
	s := storageFactsOf(ex, consts)
	if s != nil {
		rls, force = boolText(s.RowSecurity), boolText(s.ForceRowSecurity)
	}
	if verbose {
		if s == nil || s.ReplIdent == 0 {
			return nil, unsupported(-1, "\\d+ of "+t.Name+": its options, storage and replica identity were not read (copied by an older sidecar; a resync reads them)")
		}
		opts := append([]string(nil), s.Options...)
		for _, o := range s.ToastOptions {
			opts = append(opts, "toast."+o)
		}
		options, replident = strings.Join(opts, ", "), charText(s.ReplIdent)
	}
	return [][]*string{{checks, strp(relKind(t)), hasIndex, strp("f"), triggers, strp(rls), strp(force), strp("f"), strp(boolText(isPartition(t))), strp(options),
		strp("0"), strp(""), strp("p"), strp(replident), strp("heap")}}, nil
}

// tableColumns answers psql's \d (verbose false) and \d+ column query.
func tableColumns(ex *execCtx, consts []string, verbose bool) ([][]*string, error) {
	t := tableByOID(ex, oidLiteral(consts))
	if t == nil {
		return nil, describedOther(ex, oidLiteral(consts), "\\d") // pgcatalog_partitioned.go
	}
	s := storageFactsOf(ex, consts)
	if verbose && (s == nil || len(s.ColumnStorage) != len(t.Columns)) {
		return nil, unsupported(-1, "\\d+ of "+t.Name+": its columns' storage was not read (copied by an older sidecar; a resync reads it)")
	}
	cols, ok := tableColumnsView(t) // catalog_columns.go
	if !ok {
		return nil, notCarriedUnread("\\d", t)
	}
	var rows [][]*string
	for _, c := range cols {
		f := c.facts
		if f == nil {
			return nil, unsupported(-1, "\\d of "+t.Name+": its NOT NULL and defaults were not read (copied by an older sidecar; a resync reads them)")
		}
		var def *string
		if f.HasDefault {
			def = strp(f.DefaultPretty)
		}
		coll, err := psqlCollation(t, c.Column)
		if err != nil {
			return nil, err
		}
		ft := formatType(c.Column)
		// A column of a user type (enum, domain, their arrays): its name
		// as format_type prints it under the session's search_path (the
		// stream's type name is schema-qualified, and a domain column's is
		// its base type's), as the catalog's format_type does.
		if v, ok, err := formatListedType(ex.src.Tables(), searchPathOf(ex.sess), c.TypeOID, int64(c.TypeMod)); ok {
			if err != nil {
				return nil, err
			}
			ft = v.(string)
		}
		row := []*string{strp(c.Name), strp(ft), def, strp(boolText(f.NotNull)), coll, strp(charText(f.Identity)), strp(charText(f.Generated))}
		if verbose {
			storage, compression, target := c.storage(s)
			row = append(row, strp(storage), strp(compression), nonEmpty(target), nonEmpty(c.comment(schemaFactsOf(t))))
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// nth is vals[i], "" past its end (an aligned list is nil when every
// value is empty).
func nth(vals []string, i int) string {
	if i < len(vals) {
		return vals[i]
	}
	return ""
}

// psqlCollation is psql's Collation column: the column's collation when
// it is not its type's (attcollation <> typcollation), else NULL.
func psqlCollation(t *Table, c Column) (*string, error) {
	name := c.Collation.Name
	if name == "" {
		return nil, nil // not collatable (the copy reads every collatable column's)
	}
	typeDefault := ""
	switch c.TypeOID {
	case oidText, oidVarchar, oidBpchar, 1009, 1015, 1014:
		typeDefault = "default"
	case oidName, 1003:
		typeDefault = "C"
	}
	switch {
	case name == typeDefault:
		return nil, nil
	case typeDefault == "" && name == "default":
		// A collatable type sidecar does not know (a domain, citext):
		// its typcollation is not known.
		return nil, unsupported(-1, "\\d of "+t.Name+": the collation of its column "+c.Name+" (of type "+c.TypeName+")")
	}
	return strp(name), nil
}
