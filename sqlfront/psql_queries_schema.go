package sqlfront

import (
	"sort"
	"strings"

	"github.com/sidecar-dev/sidecar/internal/pgident"
	"github.com/sidecar-dev/sidecar/wal"
)

// psqlSchemaQueries are psql 15's \d queries for foreign keys, the
// tables referencing this one and triggers (captured with psql -E).
// They cast to regclass, which sidecar's engine does not have yet, so
// they are recognised by fingerprint like psqlQueries and answered from
// the schema facts (wal.SchemaFacts). psql sends them when
// pg_class.relhastriggers is true.
var psqlSchemaQueries = map[string]string{
	"dfk": `SELECT true as sametable, conname,
  pg_catalog.pg_get_constraintdef(r.oid, true) as condef,
  conrelid::pg_catalog.regclass AS ontable
FROM pg_catalog.pg_constraint r
WHERE r.conrelid = '16400' AND r.contype = 'f'
     AND conparentid = 0
ORDER BY conname`,
	"dreferenced": `SELECT conname, conrelid::pg_catalog.regclass AS ontable,
       pg_catalog.pg_get_constraintdef(oid, true) AS condef
  FROM pg_catalog.pg_constraint c
 WHERE confrelid IN (SELECT pg_catalog.pg_partition_ancestors('16400')
                     UNION ALL VALUES ('16400'::pg_catalog.regclass))
       AND contype = 'f' AND conparentid = 0
ORDER BY conname;`,
	"dtriggers": triggersQuery,
	// dfkpart is the foreign-key query of a partition (psql_partdescribe.go).
	"dfkpart": psqlPartDescribeTexts["dfkpart"],
	// dtriggers14 is dtriggers as psql 15 sends it to a server before
	// 15: it also lists internal triggers that depend on another trigger
	// (those cloned onto a partition), which the facts do not hold.
	"dtriggers14": strings.Replace(triggersQuery, "t.tgenabled = 'D'))", "t.tgenabled = 'D') "+
		"OR EXISTS (SELECT 1 FROM pg_catalog.pg_depend WHERE objid = t.oid AND refclassid = 'pg_catalog.pg_trigger'::pg_catalog.regclass))", 1),
}

// triggersQuery is psql 15's trigger listing of \d (a 15+ server).
const triggersQuery = `SELECT t.tgname, pg_catalog.pg_get_triggerdef(t.oid, true), t.tgenabled, t.tgisinternal,
  CASE WHEN t.tgparentid != 0 THEN
    (SELECT u.tgrelid::pg_catalog.regclass
     FROM pg_catalog.pg_trigger AS u,
          pg_catalog.pg_partition_ancestors(t.tgrelid) WITH ORDINALITY AS a(relid, depth)
     WHERE u.tgname = t.tgname AND u.tgrelid = a.relid
           AND u.tgparentid = 0
     ORDER BY a.depth LIMIT 1)
  END AS parent
FROM pg_catalog.pg_trigger t
WHERE t.tgrelid = '16400' AND (NOT t.tgisinternal OR (t.tgisinternal AND t.tgenabled = 'D'))
ORDER BY 1;`

// psqlSchemaHandlers answer psqlSchemaQueries by name.
var psqlSchemaHandlers = map[string]*canned{
	"dfk": {byOID: true, cols: []string{"sametable:bool", "conname:name@pg_constraint.conname", "condef", "ontable:regclass"}, rows: func(ex *execCtx, consts []string) ([][]*string, error) {
		t, s, err := describedFacts(ex, consts)
		if t == nil || err != nil {
			return nil, err
		}
		var rows [][]*string
		clones, covered := fkClones(ex.src.Tables()) // psql_partdescribe.go
		for _, c := range s.Constraints {
			if c.Type != 'f' {
				continue
			}
			// A foreign key to a partitioned table is cloned onto each
			// of its partitions (conparentid <> 0): psql lists the one.
			if cloned, err := fkCloned(ex.src.Tables(), t.Name, c, clones, covered); err != nil {
				return nil, err
			} else if !cloned {
				rows = append(rows, []*string{strp("t"), strp(c.Name), strp(c.DefPretty), strp(regclassText(ex, t))})
			}
		}
		sortRows(rows, 1)
		return rows, nil
	}},
	"dreferenced": {byOID: true, cols: []string{"conname:name@pg_constraint.conname", "ontable:regclass", "condef"}, rows: func(ex *execCtx, consts []string) ([][]*string, error) {
		t, s, err := describedFacts(ex, consts)
		if t == nil || err != nil {
			return nil, err
		}
		if referencedElsewhere(ex.src.Tables(), s) {
			return nil, unsupported(-1, "\\d of "+t.Name+": a table sidecar does not follow has a foreign key to it")
		}
		// A partition is referenced by the foreign keys to its
		// ancestors too; the clones PostgreSQL made of those onto it
		// are not listed (psql_partdescribe.go).
		rows, err := partitionReferencedRows(ex, t)
		if err != nil {
			return nil, err
		}
		clones, _ := fkClones(ex.src.Tables())
		for _, o := range ex.src.Tables() {
			os := schemaFactsOf(&o)
			if os == nil {
				return nil, unsupported(-1, "\\d of "+t.Name+": the constraints of "+o.Name+" were not read (copied by an older sidecar; a resync reads them)")
			}
			for _, c := range os.Constraints {
				if c.Type == 'f' && c.RefOID == t.OID && !clones[c.OID] {
					rows = append(rows, []*string{strp(c.Name), strp(regclassText(ex, &o)), strp(c.DefPretty)})
				}
			}
		}
		sortRows(rows, 0)
		return rows, nil
	}},
	"dtriggers": {byOID: true, cols: triggerCols, rows: triggerRows},
	"dfkpart":   {byOID: true, cols: []string{"sametable:bool", "conname:name@pg_constraint.conname", "condef", "ontable:regclass"}, rows: partitionFKRows}, // psql_partdescribe.go
	"dtriggers14": {byOID: true, cols: triggerCols, rows: func(ex *execCtx, consts []string) ([][]*string, error) {
		if t := tableByOID(ex, oidLiteral(consts)); t != nil && (t.Facts == nil || t.Facts.PartitionOf != "" || t.part != nil) {
			return nil, unsupported(-1, "\\d of the partition "+t.Name+" on PostgreSQL 14 (its internal triggers cloned from the partitioned table's are not read)")
		}
		return triggerRows(ex, consts)
	}},
}

// triggerCols and triggerRows answer psql's trigger listing of \d.
var triggerCols = []string{"tgname:name@pg_trigger.tgname", "pg_get_triggerdef", "tgenabled:char@pg_trigger.tgenabled", "tgisinternal:bool@pg_trigger.tgisinternal", "parent:regclass"}

func triggerRows(ex *execCtx, consts []string) ([][]*string, error) {
	t, s, err := describedFacts(ex, consts)
	if t == nil || err != nil {
		return nil, err
	}
	var rows [][]*string
	for _, tr := range s.Triggers {
		if tr.Inherited {
			return nil, unsupported(-1, "\\d of "+t.Name+": trigger "+tr.Name+" is inherited from a partitioned table (its parent is not kept)")
		}
		rows = append(rows, []*string{strp(tr.Name), strp(tr.Def), strp(charText(tr.Enabled)), strp(boolText(tr.Internal)), nil})
	}
	sortRows(rows, 0)
	return rows, nil
}

// describedFacts returns the table a psql \d query names by OID and its
// schema facts (nil table: no such followed table); a table copied
// before they were read is refused.
func describedFacts(ex *execCtx, consts []string) (*Table, *wal.SchemaFacts, error) {
	t := tableByOID(ex, oidLiteral(consts))
	if t == nil {
		return nil, nil, nil
	}
	s := schemaFactsOf(t)
	if s == nil {
		return nil, nil, unsupported(-1, "\\d of "+t.Name+": its constraints and triggers were not read (copied by an older sidecar; a resync reads them)")
	}
	return t, s, nil
}

// regclassText is an OID's regclass output for a followed table: its
// name, schema-qualified when the search path does not find it.
func regclassText(ex *execCtx, t *Table) string {
	if tableVisible(ex.src.Tables(), searchPathOf(ex.sess), t.OID) == true {
		return pgident.Quote(t.Rel)
	}
	return pgident.Quote(t.Schema) + "." + pgident.Quote(t.Rel)
}

// sortRows orders rows by column k's text in byte order (psql's
// ORDER BY over name columns: "C" collation).
func sortRows(rows [][]*string, k int) {
	sort.SliceStable(rows, func(i, j int) bool { return strings.Compare(*rows[i][k], *rows[j][k]) < 0 })
}
