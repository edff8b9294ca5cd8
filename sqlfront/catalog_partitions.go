package sqlfront

import (
	"sort"

	"github.com/sidecar-dev/sidecar/wal"
)

// psql's partition footer and \dP listings (issues 21, 23). \d of a
// partition prints "Partition of: parent FOR VALUES …" (and, with \d+,
// "Partition constraint: …") from one query over pg_inherits and
// relpartbound, answered from the table's inherits facts (section 'o':
// its parent) and its partition facts (section 'r': its bound and
// constraint, wal.PartitionFacts). \dP, \dPt, \dPi and their n forms
// list the partitioned tables above the followed partitions and their
// partitioned indexes (wal.InheritFacts.Ancestors); \dP+ reads sizes
// and stays refused (pg_table_size). \d of a partitioned table itself
// stays refused: its columns, indexes and constraints are not read.

// psqlPartitionQueries are psql 15's texts (the same to a 14–18 server).
var psqlPartitionQueries = map[string]string{
	"dpartof": `SELECT inhparent::pg_catalog.regclass,
  pg_catalog.pg_get_expr(c.relpartbound, c.oid),
  inhdetachpending
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_inherits i ON c.oid = inhrelid
WHERE c.oid = '16401';`,
	"dpartofplus": `SELECT inhparent::pg_catalog.regclass,
  pg_catalog.pg_get_expr(c.relpartbound, c.oid),
  inhdetachpending,
  pg_catalog.pg_get_partition_constraintdef(c.oid)
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_inherits i ON c.oid = inhrelid
WHERE c.oid = '16401';`,
	"dP": `SELECT n.nspname as "Schema",
  c.relname as "Name",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner",
  CASE c.relkind WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type",
 c2.oid::pg_catalog.regclass as "Table"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_index i ON i.indexrelid = c.oid
     LEFT JOIN pg_catalog.pg_class c2 ON i.indrelid = c2.oid
WHERE c.relkind IN ('p','I','')
 AND NOT c.relispartition
      AND n.nspname <> 'pg_catalog'
      AND n.nspname !~ '^pg_toast'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY "Schema", "Type" DESC, "Name";`,
	"dPn": `SELECT n.nspname as "Schema",
  c.relname as "Name",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner",
  CASE c.relkind WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type",
  inh.inhparent::pg_catalog.regclass as "Parent name",
 c2.oid::pg_catalog.regclass as "Table"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_index i ON i.indexrelid = c.oid
     LEFT JOIN pg_catalog.pg_class c2 ON i.indrelid = c2.oid
     LEFT JOIN pg_catalog.pg_inherits inh ON c.oid = inh.inhrelid
WHERE c.relkind IN ('p','I','')
      AND n.nspname <> 'pg_catalog'
      AND n.nspname !~ '^pg_toast'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY "Schema", "Type" DESC, "Parent name" NULLS FIRST, "Name";`,
	"dPt": `SELECT n.nspname as "Schema",
  c.relname as "Name",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('p','')
 AND NOT c.relispartition
      AND n.nspname <> 'pg_catalog'
      AND n.nspname !~ '^pg_toast'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY "Schema", "Name";`,
	"dPtn": `SELECT n.nspname as "Schema",
  c.relname as "Name",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner",
  inh.inhparent::pg_catalog.regclass as "Parent name"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_inherits inh ON c.oid = inh.inhrelid
WHERE c.relkind IN ('p','')
      AND n.nspname <> 'pg_catalog'
      AND n.nspname !~ '^pg_toast'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY "Schema", "Parent name" NULLS FIRST, "Name";`,
	"dPi": `SELECT n.nspname as "Schema",
  c.relname as "Name",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner",
 c2.oid::pg_catalog.regclass as "Table"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_index i ON i.indexrelid = c.oid
     LEFT JOIN pg_catalog.pg_class c2 ON i.indrelid = c2.oid
WHERE c.relkind IN ('I','')
 AND NOT c.relispartition
      AND n.nspname <> 'pg_catalog'
      AND n.nspname !~ '^pg_toast'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY "Schema", "Name";`,
	"dPin": `SELECT n.nspname as "Schema",
  c.relname as "Name",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner",
  inh.inhparent::pg_catalog.regclass as "Parent name",
 c2.oid::pg_catalog.regclass as "Table"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_index i ON i.indexrelid = c.oid
     LEFT JOIN pg_catalog.pg_class c2 ON i.indrelid = c2.oid
     LEFT JOIN pg_catalog.pg_inherits inh ON c.oid = inh.inhrelid
WHERE c.relkind IN ('I','')
      AND n.nspname <> 'pg_catalog'
      AND n.nspname !~ '^pg_toast'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY "Schema", "Parent name" NULLS FIRST, "Name";`,
}

// The \dP columns: "Schema", "Name", "Owner", then per listing "Type",
// "Parent name" and "Table".
var (
	dPHead   = []string{"Schema:name@pg_namespace.nspname", "Name:name@pg_class.relname", "Owner:name"}
	dPType   = "Type"
	dPParent = "Parent name:regclass"
	dPTable  = "Table:regclass"
)

// psqlPartitionHandlers answer psqlPartitionQueries by name.
var psqlPartitionHandlers = map[string]*canned{
	"dpartof": {byOID: true, cols: []string{"inhparent:regclass", "pg_get_expr", "inhdetachpending:bool@pg_inherits.inhdetachpending"},
		rows: func(ex *execCtx, consts []string) ([][]*string, error) { return partitionOfRows(ex, consts, false) }},
	"dpartofplus": {byOID: true, cols: []string{"inhparent:regclass", "pg_get_expr", "inhdetachpending:bool@pg_inherits.inhdetachpending", "pg_get_partition_constraintdef"},
		rows: func(ex *execCtx, consts []string) ([][]*string, error) { return partitionOfRows(ex, consts, true) }},
	"dP":   partListing(dPListing{tables: true, indexes: true, roots: true}, dPType, dPTable),
	"dPn":  partListing(dPListing{tables: true, indexes: true}, dPType, dPParent, dPTable),
	"dPt":  partListing(dPListing{tables: true, roots: true}),
	"dPtn": partListing(dPListing{tables: true}, dPParent),
	"dPi":  partListing(dPListing{indexes: true, roots: true}, dPTable),
	"dPin": partListing(dPListing{indexes: true}, dPParent, dPTable),
}

// partitionOfRows answers psql's partition footer query: the table's
// pg_inherits rows (one, its partitioned parent, for a partition) with
// its bound, the row's inhdetachpending and, verbose, its partition
// constraint.
func partitionOfRows(ex *execCtx, consts []string, verbose bool) ([][]*string, error) {
	t := tableByOID(ex, oidLiteral(consts))
	if t == nil {
		return nil, describedOther(ex, oidLiteral(consts), "\\d") // pgcatalog_partitioned.go
	}
	f := t.Facts
	if f == nil || f.Inherits == nil || f.Partition == nil {
		return nil, unsupported(-1, "\\d of "+t.Name+": its partition bound was not read (copied by an older sidecar; the next catalog poll reads it)")
	}
	parents := f.Inherits.Parents
	if len(parents) > 1 {
		// No ORDER BY: pg_inherits' order (a partition has one parent).
		return nil, unsupported(-1, "\\d of "+t.Name+": the order of its parents in pg_inherits")
	}
	var bound, constraint *string
	if f.Partition.Bound != "" {
		bound = strp(f.Partition.Bound)
	}
	if f.Partition.Constraint != "" {
		constraint = strp(f.Partition.Constraint)
		if verbose && !printsAsPublic(ex.src.Tables(), searchPathOf(ex.sess)) {
			return nil, unsupported(-1, "\\d+ of "+t.Name+": its partition constraint under this search_path (read under search_path public)")
		}
	}
	var rows [][]*string
	for _, p := range parents {
		row := []*string{sv(regclassOf(ex, p.OID, p.Schema, p.Name)), bound, sv(boolText(p.DetachPending))}
		if verbose {
			row = append(row, constraint)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// dPListing is what one \dP listing lists: partitioned tables, indexes,
// only the roots (NOT c.relispartition; the n forms list every level).
type dPListing struct{ tables, indexes, roots bool }

// dPRel is one partitioned relation \dP lists.
type dPRel struct {
	schema, name, owner string
	index               bool
	parent              *string // its pg_inherits parent (regclass), nil for a root
	parentOID           uint32
	table               *string // an index's table (regclass)
}

// partListing is the canned answer of one \dP listing whose columns
// after Schema, Name and Owner are extra.
func partListing(l dPListing, extra ...string) *canned {
	cols := append(append([]string(nil), dPHead...), extra...)
	return &canned{cols: cols, rows: func(ex *execCtx, _ []string) ([][]*string, error) {
		rels, err := partitionedRels(ex, l)
		if err != nil {
			return nil, err
		}
		// ORDER BY "Schema"[, "Type" DESC][, "Parent name" NULLS FIRST],
		// "Name": name columns (C: bytes), 'partitioned table' before
		// 'partitioned index' under any collation, regclass by OID.
		sort.SliceStable(rels, func(i, j int) bool {
			a, b := rels[i], rels[j]
			if a.schema != b.schema {
				return a.schema < b.schema
			}
			if l.tables && l.indexes && a.index != b.index {
				return !a.index
			}
			if !l.roots && a.parentOID != b.parentOID {
				return a.parentOID < b.parentOID // NULL (0) first
			}
			return a.name < b.name
		})
		var rows [][]*string
		for _, r := range rels {
			row := []*string{sv(r.schema), sv(r.name), sv(r.owner)}
			for _, c := range extra {
				switch c {
				case dPType:
					kind := "partitioned table"
					if r.index {
						kind = "partitioned index"
					}
					row = append(row, sv(kind))
				case dPParent:
					row = append(row, r.parent)
				case dPTable:
					row = append(row, r.table)
				}
			}
			rows = append(rows, row)
		}
		return rows, nil
	}}
}

// partitionedRels are the partitioned tables and indexes l lists that
// pg_table_is_visible finds: the ones above the followed partitions. A
// followed table that is itself partitioned (a root followed as its
// root: its partitioned indexes are not read) refuses the listing.
func partitionedRels(ex *execCtx, l dPListing) ([]dPRel, error) {
	tables := ex.src.Tables()
	for i := range tables {
		if tables[i].Facts != nil && tables[i].Facts.Kind == 'p' {
			return nil, unsupported(-1, "\\dP with the partitioned table "+tables[i].Name+" followed as its root")
		}
	}
	if err := partitionedUnread(tables, "\\dP"); err != nil { // pgcatalog_partitioned.go
		return nil, err
	}
	parts, _ := partitionedClasses(tables)
	byOID := map[uint32]wal.PartAncestor{}
	indexes := map[uint32]string{} // a partitioned index's regclass by OID
	for _, a := range parts {
		byOID[a.OID] = a
	}
	vis := newVisibleSet(tables, searchPathOf(ex.sess))
	visible := func(oid uint32) bool { v, _ := vis.of(oid).(bool); return v }
	for _, a := range parts {
		for _, x := range a.Indexes {
			indexes[x.OID] = regclassOf(ex, x.OID, a.Schema, x.Name)
		}
	}
	var out []dPRel
	for _, a := range parts {
		table := regclassOf(ex, a.OID, a.Schema, a.Name)
		if l.tables && visible(a.OID) && (!l.roots || a.Parent == 0) {
			r := dPRel{schema: a.Schema, name: a.Name, owner: a.Owner, parentOID: a.Parent}
			if a.Parent != 0 {
				p, ok := byOID[a.Parent]
				if !ok {
					return nil, unsupported(-1, "\\dP: the parent of "+a.Schema+"."+a.Name+" (not read)")
				}
				r.parent = sv(regclassOf(ex, p.OID, p.Schema, p.Name))
			}
			out = append(out, r)
		}
		if !l.indexes {
			continue
		}
		for _, x := range a.Indexes {
			if !visible(x.OID) || l.roots && x.Parent != 0 {
				continue
			}
			r := dPRel{schema: a.Schema, name: x.Name, owner: a.Owner, index: true, parentOID: x.Parent, table: sv(table)}
			if x.Parent != 0 {
				p, ok := indexes[x.Parent]
				if !ok {
					return nil, unsupported(-1, "\\dP: the parent index of "+a.Schema+"."+x.Name+" (not read)")
				}
				r.parent = sv(p)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// printsAsPublic says whether names print as under search_path public
// (how the copy printed defaults and partition constraints) under path:
// its first existing schema is public and no followed schema precedes it.
func printsAsPublic(tables []Table, path []string) bool {
	_, ns := (&pgCatCtx{tables: tables}).namespaces()
	for _, p := range path {
		if p == "public" {
			return true
		}
		if _, ok := ns[p]; ok && p != "pg_catalog" {
			return false
		}
	}
	return false
}
