package sqlfront

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/wal"
)

// psql's \d and \d+ of a partitioned table (issue 23, session 26). The
// partitioned tables above the followed partitions hold no rows in the
// mirror and have no record of their own; psql's \d of one was refused
// (partmid.go). The table carrying the cluster's facts now reads, at
// the copy and each catalog poll, PostgreSQL's answers to psql's \d
// queries for every partitioned table of the database (facts section
// 'C', wal.PartDescribeFacts: columns with storage and comments,
// partition key, partitioned indexes, check and foreign-key constraints
// and those referencing it, publications, triggers, the partitions with
// their bounds, its own bound when it is a partition), and psql's \d
// queries naming such a table are answered from them: up to one poll
// stale, as the rest of the catalog. The regclass columns are kept as
// OIDs and printed under the session's search path; the other texts
// were printed under search_path public, so another path that would
// print names otherwise is refused (printsAsPublic), as are a table
// with row security policies or extended statistics objects (not
// read) and \d of a partitioned table that was not read (a record
// written before, over the bound).

// partQuery is how one psql query is answered from a table's facts.
type partQuery struct {
	result string // the wal.PartResult read for it
	cols   []string
	n      int   // the first n cells of each stored row (0: all)
	blank  []int // cells answered '' (\d's reloptions column)
	// regclass are the columns (of the answer) holding a regclass's OID.
	regclass []int
	// refuseAny: sidecar does not describe what the rows are; any row
	// refuses the query.
	refuseAny string
}

// psqlPartDescribeTexts are psql 15's texts of the \d queries not
// recognised elsewhere (the others are taken from their maps).
var psqlPartDescribeTexts = map[string]string{
	"partkey": `SELECT pg_catalog.pg_get_partkeydef('16389'::pg_catalog.oid);`,
	"dchecks": `SELECT r.conname, pg_catalog.pg_get_constraintdef(r.oid, true)
FROM pg_catalog.pg_constraint r
WHERE r.conrelid = '16389' AND r.contype = 'c'
ORDER BY 1;`,
	"dfkpart": `SELECT conrelid = '16389'::pg_catalog.regclass AS sametable,
       conname,
       pg_catalog.pg_get_constraintdef(oid, true) AS condef,
       conrelid::pg_catalog.regclass AS ontable
  FROM pg_catalog.pg_constraint,
       pg_catalog.pg_partition_ancestors('16389')
 WHERE conrelid = relid AND contype = 'f' AND conparentid = 0
ORDER BY sametable DESC, conname;`,
	"dpolicies": `SELECT pol.polname, pol.polpermissive,
  CASE WHEN pol.polroles = '{0}' THEN NULL ELSE pg_catalog.array_to_string(array(select rolname from pg_catalog.pg_roles where oid = any (pol.polroles) order by 1),',') END,
  pg_catalog.pg_get_expr(pol.polqual, pol.polrelid),
  pg_catalog.pg_get_expr(pol.polwithcheck, pol.polrelid),
  CASE pol.polcmd
    WHEN 'r' THEN 'SELECT'
    WHEN 'a' THEN 'INSERT'
    WHEN 'w' THEN 'UPDATE'
    WHEN 'd' THEN 'DELETE'
    END AS cmd
FROM pg_catalog.pg_policy pol
WHERE pol.polrelid = '16389' ORDER BY 1;`,
}

// psqlPartDescribe are the answers by psql query name.
func psqlPartDescribe() map[string]partQuery {
	trig := []string{"tgname:name@pg_trigger.tgname", "pg_get_triggerdef", "tgenabled:char@pg_trigger.tgenabled", "tgisinternal:bool@pg_trigger.tgisinternal", "parent:regclass"}
	pubs := []string{"pubname:name", "?column?", "?column?"}
	return map[string]partQuery{
		"dinfo":       {result: "dinfo", cols: dinfoCols, blank: []int{9}},
		"dinfoplus":   {result: "dinfo", cols: dinfoPlusCols},
		"dcols":       {result: "dcols", cols: psqlHandlers["dcols"].cols, n: 7},
		"dcolsplus":   {result: "dcols", cols: psqlHandlers["dcolsplus"].cols},
		"dpartof":     {result: "dpartof", cols: psqlPartitionHandlers["dpartof"].cols, n: 3, regclass: []int{0}},
		"dpartofplus": {result: "dpartof", cols: psqlPartitionHandlers["dpartofplus"].cols, regclass: []int{0}},
		"partkey":     {result: "partkey", cols: []string{"pg_get_partkeydef"}},
		"dindex": {result: "dindex", cols: []string{"relname:name@pg_class.relname", "indisprimary:bool@pg_index.indisprimary", "indisunique:bool@pg_index.indisunique",
			"indisclustered:bool@pg_index.indisclustered", "indisvalid:bool@pg_index.indisvalid", "pg_get_indexdef", "pg_get_constraintdef", "contype:char@pg_constraint.contype",
			"condeferrable:bool@pg_constraint.condeferrable", "condeferred:bool@pg_constraint.condeferred", "indisreplident:bool@pg_index.indisreplident",
			"reltablespace:oid@pg_class.reltablespace"}},
		"dchecks":     {result: "dchecks", cols: []string{"conname:name@pg_constraint.conname", "pg_get_constraintdef"}},
		"dfkpart":     {result: "dfk", cols: []string{"sametable:bool", "conname:name@pg_constraint.conname", "condef", "ontable:regclass"}, regclass: []int{3}},
		"dreferenced": {result: "dreferenced", cols: []string{"conname:name@pg_constraint.conname", "ontable:regclass", "condef"}, regclass: []int{1}},
		"dpolicies": {result: "dpolicies", cols: []string{"polname:name@pg_policy.polname", "polpermissive:bool@pg_policy.polpermissive", "array_to_string",
			"pg_get_expr", "pg_get_expr", "cmd"}, refuseAny: "its row security policies"},
		"dstats":      {result: "dstats", cols: psqlHandlers["dstats"].cols, refuseAny: "its extended statistics objects"},
		"dpubs":       {result: "dpubs", cols: pubs},
		"dpubs14":     {result: "dpubs", cols: pubs},
		"dtriggers":   {result: "dtriggers", cols: trig, regclass: []int{4}},
		"dtriggers14": {result: "dtriggers", cols: trig, regclass: []int{4}},
		"dinherits":   {result: "dinherits", cols: psqlHandlers["dinherits"].cols, regclass: []int{0}},
		"dparts":      {result: "dparts", cols: psqlHandlers["dparts"].cols, regclass: []int{0}},
	}
}

var (
	partDescribeOnce    sync.Once
	partDescribeByPrint map[string]string // fingerprint → psql query name
)

// partDescribeName is the name of the psql \d query that query is, or "".
func partDescribeName(query string) string {
	partDescribeOnce.Do(func() {
		partDescribeByPrint = map[string]string{}
		for name := range psqlPartDescribe() {
			text, ok := psqlPartDescribeTexts[name]
			for _, m := range []map[string]string{psqlQueries, psqlPartitionQueries, psqlSchemaQueries} {
				if !ok {
					text, ok = m[name]
				}
			}
			if fp, err := pg.Fingerprint(text); err == nil {
				partDescribeByPrint[fp] = name
			}
		}
	})
	if checkParseDepth(query) != nil {
		return ""
	}
	fp, err := pg.Fingerprint(query)
	if err != nil {
		return ""
	}
	return partDescribeByPrint[fp]
}

// partDescribed are the partitioned tables psql can describe: the ones
// pg_class lists (above the followed partitions) whose facts were read.
// nil when none.
func partDescribed(tables []Table) map[uint32]*wal.PartDescribe {
	facts := carriedSection(tables, func(s *wal.SchemaFacts) *wal.PartDescribeFacts { return s.PartDescribe }, (*wal.PartDescribeFacts).Equal)
	if facts == nil || len(facts.Tables) == 0 {
		return nil
	}
	listed := map[uint32]bool{}
	parts, _ := partitionedClasses(tables) // pgcatalog_partitioned.go
	for _, a := range parts {
		listed[a.OID] = true
	}
	for i := range tables {
		if f := tables[i].Facts; f != nil && f.Kind == 'p' {
			listed[tables[i].OID] = true // a root followed as its root
		}
	}
	out := map[uint32]*wal.PartDescribe{}
	for i := range facts.Tables {
		if t := &facts.Tables[i]; listed[t.OID] {
			out[t.OID] = t
		}
	}
	return out
}

// partDescribePlan is the plan of psql's \d query when it names a
// partitioned table whose facts were read; nil otherwise (the query is
// answered as before).
func partDescribePlan(query string, tables []Table, version int) (*plan, error) {
	if !strings.Contains(query, "pg_catalog") {
		return nil, nil
	}
	described := partDescribed(tables)
	if described == nil {
		return nil, nil
	}
	name := partDescribeName(query)
	if name == "" {
		return nil, nil
	}
	pd := described[oidLiteral(literals(query))]
	if pd == nil {
		return nil, nil
	}
	q := psqlPartDescribe()[name]
	return cannedPlan(&canned{cols: q.cols, rows: func(ex *execCtx, _ []string) ([][]*string, error) {
		return partDescribeRows(ex, pd, q)
	}}, query, version)
}

// partDescribeRows answers one psql query for the partitioned table pd.
func partDescribeRows(ex *execCtx, pd *wal.PartDescribe, q partQuery) ([][]*string, error) {
	what := `\d of the partitioned table ` + pd.Schema + "." + pd.Name
	stored, ok := pd.Result(q.result)
	if !ok {
		return nil, unsupported(-1, what+": its "+q.result+" facts were not read (a sidecar before them; the next catalog poll reads them)")
	}
	if q.refuseAny != "" && len(stored) > 0 {
		return nil, unsupported(-1, what+": "+q.refuseAny+" (not read)")
	}
	if !printsAsPublic(ex.src.Tables(), searchPathOf(ex.sess)) {
		return nil, unsupported(-1, what+" under this search_path (its definitions were read under search_path public)")
	}
	var rows [][]*string
	for _, s := range stored {
		if q.n > 0 && len(s) > q.n {
			s = s[:q.n]
		}
		row := make([]*string, len(s))
		for i, c := range s {
			if !c.Null {
				row[i] = sv(c.Text)
			}
		}
		for _, i := range q.blank {
			row[i] = sv("")
		}
		for _, i := range q.regclass {
			if row[i] == nil {
				continue
			}
			text, err := partRegclass(ex, pd, *row[i])
			if err != nil {
				return nil, err
			}
			row[i] = sv(text)
		}
		rows = append(rows, row)
	}
	// "dparts" rows are in psql's order (pg_get_expr(relpartbound) =
	// 'DEFAULT', then c.oid::regclass::text under the database's
	// collation): the reader asked PostgreSQL for it, under search_path
	// public, whose names printsAsPublic checked print alike here.
	return rows, nil
}

// partRegclass is regclass's output of the relation of OID oid (its
// digits) that pd's answers name.
func partRegclass(ex *execCtx, pd *wal.PartDescribe, oid string) (string, error) {
	n, err := strconv.ParseUint(oid, 10, 32)
	if err == nil {
		for _, r := range pd.Rels {
			if uint64(r.OID) == n {
				return regclassOf(ex, r.OID, r.Schema, r.Name), nil // pgcatalog_partitioned.go
			}
		}
	}
	return "", unsupported(-1, `\d of the partitioned table `+pd.Schema+"."+pd.Name+": the relation of OID "+oid+" (not read)")
}

// partDescribeLookup is psql's \d lookup of the partitioned tables whose
// name re matches: the rows of the described ones pg_table_is_visible
// finds (oid, schema, name), and the refusal of a matching one that
// pg_class lists but whose facts were not read.
func partDescribeLookup(ex *execCtx, re psqlMatcher, visible func(uint32) bool) ([][]*string, error) {
	tables := ex.src.Tables()
	described := partDescribed(tables)
	var rows [][]*string
	for _, pd := range described {
		if tableByOID(ex, pd.OID) != nil {
			continue // a root followed as its root: listed as a followed table
		}
		ok, err := re(pd.Name)
		if err != nil {
			return nil, err
		}
		if ok && visible(pd.OID) {
			rows = append(rows, []*string{u32(pd.OID), sv(pd.Schema), sv(pd.Name)})
		}
	}
	isDescribed := func(schema, name string) bool {
		for _, pd := range described {
			if pd.Schema == schema && pd.Name == name {
				return true
			}
		}
		return false
	}
	// The partitioned tables sidecar knows of but cannot describe.
	for _, tn := range partRootNames(ex.src) { // partmid.go
		if isDescribed(tn.Schema, tn.Name) {
			continue
		}
		if ok, err := re(tn.Name); err != nil || ok {
			if err != nil {
				return nil, err
			}
			return nil, partRootLookupRefused("\\d", tn)
		}
	}
	return rows, nil
}

// fkClones are the foreign keys PostgreSQL cloned onto the partitions
// of the described partitioned tables (conparentid <> 0: psql's \d
// leaves them out), and the partitions whose clones are known (those of
// a described table).
func fkClones(tables []Table) (clones, covered map[uint32]bool) {
	clones, covered = map[uint32]bool{}, map[uint32]bool{}
	for _, pd := range partDescribed(tables) {
		rows, ok := pd.Result("dclones")
		parts, pok := pd.Result("dparts")
		if !ok || !pok {
			continue
		}
		for _, r := range rows {
			if n, err := strconv.ParseUint(r[0].Text, 10, 32); err == nil {
				clones[uint32(n)] = true
			}
		}
		for _, r := range parts {
			if n, err := strconv.ParseUint(r[0].Text, 10, 32); err == nil {
				covered[uint32(n)] = true
			}
		}
	}
	return clones, covered
}

// inPartitionTree says whether oid is a partition: a followed one, or a
// partitioned table below another.
func inPartitionTree(tables []Table, oid uint32) bool {
	for i := range tables {
		if tables[i].OID == oid {
			return isPartition(&tables[i]) // pgcatalog_partitioned.go
		}
	}
	parts, _ := partitionedClasses(tables)
	for _, a := range parts {
		if a.OID == oid {
			return a.Parent != 0
		}
	}
	return false
}

// fkCloned says whether the foreign key c of table name is a clone
// PostgreSQL made onto a partition of the table it references (psql's
// \d leaves it out); refused when c references a partition whose
// clones were not read.
func fkCloned(tables []Table, name string, c wal.ConstraintFacts, clones, covered map[uint32]bool) (bool, error) {
	if !inPartitionTree(tables, c.RefOID) {
		return false, nil
	}
	if !covered[c.RefOID] {
		return false, unsupported(-1, `\d of `+name+": its foreign key "+c.Name+" references a partition whose partitioned table's facts were not read (the next catalog poll reads them)")
	}
	return clones[c.OID], nil
}

// partitionParent is the described partitioned table t is a partition
// of (nil: t is not a partition, or its parent was not described).
func partitionParent(tables []Table, t *Table) *wal.PartDescribe {
	if t.Facts == nil || t.Facts.Inherits == nil || len(t.Facts.Inherits.Ancestors) == 0 {
		return nil
	}
	return partDescribed(tables)[t.Facts.Inherits.Ancestors[0].OID]
}

// partitionFKRows answers psql's \d foreign-key query of a followed
// partition (dfkpart: the foreign keys of it and of its ancestors, not
// the clones): its own from its schema facts, its ancestors' from its
// parent's facts (section 'C').
func partitionFKRows(ex *execCtx, consts []string) ([][]*string, error) {
	t, s, err := describedFacts(ex, consts) // psql_queries_schema.go
	if t == nil || err != nil {
		return nil, err
	}
	if !isPartition(t) {
		// pg_partition_ancestors of a table in no partition tree
		// returns no row: the query lists nothing (psql sends it for
		// partitions only).
		return nil, nil
	}
	tables := ex.src.Tables()
	clones, covered := fkClones(tables)
	var rows [][]*string
	if isPartition(t) {
		pd := partitionParent(tables, t)
		if pd == nil || !covered[t.OID] {
			return nil, unsupported(-1, `\d of the partition `+t.Name+": its partitioned table's foreign keys were not read (the next catalog poll reads them)")
		}
		inherited, err := partDescribeRows(ex, pd, psqlPartDescribe()["dfkpart"])
		if err != nil {
			return nil, err
		}
		for _, r := range inherited {
			r[0] = sv("f") // conrelid is an ancestor, not t
			rows = append(rows, r)
		}
	}
	for _, c := range s.Constraints {
		if c.Type != 'f' || clones[c.OID] {
			continue
		}
		if cloned, err := fkCloned(tables, t.Name, c, clones, covered); err != nil {
			return nil, err
		} else if !cloned {
			rows = append(rows, []*string{sv("t"), sv(c.Name), sv(c.DefPretty), sv(regclassText(ex, t))})
		}
	}
	// ORDER BY sametable DESC, conname (name: bytes).
	slices.SortStableFunc(rows, func(a, b []*string) int {
		if *a[0] != *b[0] {
			return strings.Compare(*b[0], *a[0])
		}
		return strings.Compare(*a[1], *b[1])
	})
	return rows, nil
}

// partitionReferencedRows are the rows of psql's "Referenced by" query
// for a followed partition inherited from its ancestors (their foreign
// keys, read with its parent's facts); nil for a table that is not a
// partition.
func partitionReferencedRows(ex *execCtx, t *Table) ([][]*string, error) {
	if !isPartition(t) {
		return nil, nil
	}
	pd := partitionParent(ex.src.Tables(), t)
	if pd == nil {
		return nil, unsupported(-1, `\d of the partition `+t.Name+": the foreign keys referencing its partitioned table were not read (the next catalog poll reads them)")
	}
	return partDescribeRows(ex, pd, psqlPartDescribe()["dreferenced"])
}

// partitionClonedTriggers says whether t is a partition holding triggers
// cloned from its partitioned table's on a server before 15, where the
// clones are internal (the schema facts leave them out, so relhastriggers
// answered false and psql printed no "Triggers:" footer where
// PostgreSQL lists them): its parent's triggers were read with its
// facts (section 'C'). psql's trigger query then refuses (dtriggers14).
func partitionClonedTriggers(ex *execCtx, t *Table) (bool, error) {
	tables := ex.src.Tables()
	if !isPartition(t) || serverVersion(tables) >= 150000 {
		return false, nil
	}
	pd := partitionParent(tables, t)
	if pd == nil {
		return false, unsupported(-1, `\d of the partition `+t.Name+" on PostgreSQL 14: its partitioned table's triggers were not read (the next catalog poll reads them)")
	}
	rows, ok := pd.Result("dtriggers")
	if !ok {
		return false, unsupported(-1, `\d of the partition `+t.Name+" on PostgreSQL 14: its partitioned table's triggers were not read (the next catalog poll reads them)")
	}
	return len(rows) > 0, nil
}
