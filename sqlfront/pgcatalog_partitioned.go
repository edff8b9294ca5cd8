package sqlfront

import (
	"github.com/sidecar-dev/sidecar/internal/pgident"
	"github.com/sidecar-dev/sidecar/wal"
)

// Partitioned tables in the catalog (issue 21): the partitioned tables
// above the followed partitions — a root followed as its partitions, the
// middle levels below it — hold no rows in the mirror, and were not
// listed: pg_class had no row for them, psql's \dt and \d left them out.
// The copy and the catalog poll read each partition's ancestors
// (wal.InheritFacts.Ancestors: OID, name, owner, parent, relnatts), so
// pg_class lists them (relkind 'p'; the columns not read are unknown,
// refused when read) and psql's listings name them. A partition whose
// ancestors were not read (a record written before) makes those
// listings refuse rather than leave them out.

// partitionedClasses are the partitioned tables above the followed
// partitions, each once (by OID), and whether every followed
// partition's were read.
func partitionedClasses(tables []Table) (out []wal.PartAncestor, read bool) {
	read = true
	seen := map[uint32]bool{}
	for i := range tables {
		t := &tables[i]
		if t.Facts == nil || t.Facts.PartitionOf == "" {
			continue
		}
		if t.Facts.Inherits == nil {
			read = false
			continue
		}
		for _, a := range t.Facts.Inherits.Ancestors {
			if !seen[a.OID] && !followedOID(tables, a.OID) {
				seen[a.OID] = true
				out = append(out, a)
			}
		}
	}
	return out, read
}

// partitionedClassRows are the partitioned tables' pg_class rows (the
// base layout's columns: pgcatalog.go's pg_class).
func partitionedClassRows(cx *pgCatCtx, ns map[string]uint32) [][]*string {
	parts, _ := partitionedClasses(cx.tables)
	u := pgUnknown
	var out [][]*string
	for _, a := range parts {
		// As a followed table's row (pgcatalog.go): the tablespace, the
		// type it is of and the rewrite are not read (0); a partitioned
		// table has no storage (relfilenode and reltoastrelid 0) and
		// relam 0 as a followed root's.
		out = append(out, []*string{u32(a.OID), sv(a.Name), nsOID(ns[a.Schema]), u, sv("0"), u32(a.OwnerOID), sv("0"), sv("0"), sv("0"), u, u, u, sv("0"),
			bv(len(a.Indexes) > 0), sv("f"), sv("p"), sv("p"), iv(int64(a.Natts)), u, u, u, sv("t"), u, u, sv("t"), u, bv(a.Parent != 0), sv("0"), u, u, u, u, u})
		// Its partitioned indexes (relkind 'I'), in its schema, owned by
		// its owner.
		for _, x := range a.Indexes {
			out = append(out, []*string{u32(x.OID), sv(x.Name), nsOID(ns[a.Schema]), sv("0"), sv("0"), u32(a.OwnerOID), u32(x.AM), sv("0"), sv("0"), u, u, u,
				sv("0"), sv("f"), sv("f"), sv("p"), sv("I"), iv(int64(x.Natts)), sv("0"), sv("f"), sv("f"), u, sv("f"), sv("f"), sv("t"), sv("n"),
				bv(x.Parent != 0), sv("0"), u, u, u, u, nil})
		}
	}
	return out
}

// partitionedIndex says whether oid is a partitioned index pg_class
// lists (pg_index has no row of it: its keys and definition are not
// read).
func partitionedIndex(tables []Table, oid uint32) bool {
	parts, _ := partitionedClasses(tables)
	for _, a := range parts {
		for _, x := range a.Indexes {
			if x.OID == oid {
				return true
			}
		}
	}
	return false
}

// partitionedUnread refuses a listing of partitioned tables when a
// followed partition's ancestors were not read.
func partitionedUnread(tables []Table, what string) error {
	if _, read := partitionedClasses(tables); !read {
		return unsupported(-1, what+" (the partitioned tables above a followed partition were not read: copied by an older sidecar; the next catalog poll reads them)")
	}
	return nil
}

// isPartition says whether t is a partition (pg_class.relispartition).
func isPartition(t *Table) bool {
	if t.Facts == nil {
		return false
	}
	if in := t.Facts.Inherits; in != nil {
		return len(in.Ancestors) > 0
	}
	return t.Facts.PartitionOf != ""
}

// regclassOf is regclass's output for the relation schema.name of OID
// oid under the session's search path: its name alone when a search of
// the path finds it first (pg_table_is_visible), else qualified. A
// relation sidecar does not list (a parent not followed) is visible when
// its schema is on the path before any schema holding a listed relation
// of its name.
func regclassOf(ex *execCtx, oid uint32, schema, name string) string {
	tables := ex.src.Tables()
	path := searchPathOf(ex.sess)
	if v, ok := tableVisible(tables, path, oid).(bool); ok {
		if v {
			return pgident.Quote(name)
		}
		return pgident.Quote(schema) + "." + pgident.Quote(name)
	}
	rels := catalogRels(tables) // pgcatalog_reg.go
	for _, p := range path {
		if p == schema {
			return pgident.Quote(name)
		}
		for _, r := range rels {
			if r.schema == p && r.name == name {
				return pgident.Quote(schema) + "." + pgident.Quote(name)
			}
		}
	}
	return pgident.Quote(schema) + "." + pgident.Quote(name)
}

// inheritsRows answers psql's \d Inherits query (dinherits): the
// table's parents other than partitioned ones, in inhseqno order.
func inheritsRows(ex *execCtx, consts []string) ([][]*string, error) {
	t := tableByOID(ex, oidLiteral(consts))
	if t == nil {
		return nil, describedOther(ex, oidLiteral(consts), "\\d")
	}
	if t.Facts == nil || t.Facts.Inherits == nil {
		return nil, unsupported(-1, "\\d of "+t.Name+": the tables it inherits from were not read (copied by an older sidecar; the next catalog poll reads them)")
	}
	var rows [][]*string
	for _, p := range t.Facts.Inherits.Parents {
		if p.Kind != 'p' && p.Kind != 'I' {
			rows = append(rows, []*string{sv(regclassOf(ex, p.OID, p.Schema, p.Name))})
		}
	}
	return rows, nil
}

// partitionRows answers psql's \d query for the child tables (dparts):
// a followed table's direct children when every one is followed (an
// ordinary table's descendants; a partitioned table's partitions are
// refused).
func partitionRows(ex *execCtx, consts []string) ([][]*string, error) {
	t := tableByOID(ex, oidLiteral(consts))
	if t == nil {
		return nil, describedOther(ex, oidLiteral(consts), "\\d")
	}
	if t.Facts == nil {
		return nil, unsupported(-1, "\\d of "+t.Name+": its child tables were not read (copied by an older sidecar; a resync reads them)")
	}
	if t.Facts.Kind == 'p' {
		return nil, unsupported(-1, "\\d of the partitioned table "+t.Name+" (its partitions' bounds are not read)")
	}
	var rows [][]*string
	for _, d := range t.Facts.Descendants {
		if d.Parent != t.Name {
			continue
		}
		c := tableNamed(ex.src.Tables(), d.Name)
		if c == nil {
			return nil, unsupported(-1, "\\d of "+t.Name+": its child table "+d.Name+" is not followed")
		}
		rows = append(rows, []*string{sv(regclassText(ex, c)), sv(charText(d.Kind)), sv("f"), nil})
	}
	if len(rows) > 1 && !byteOrderDefault(ex.src.Tables()) {
		// ORDER BY c.oid::regclass::text: the database's collation.
		return nil, unsupported(-1, "\\d of "+t.Name+": its child tables' order under the database's collation")
	}
	sortRows(rows, 0)
	return rows, nil
}

// tableNamed is the followed table of canonical name name, or nil.
func tableNamed(tables []Table, name string) *Table {
	for i := range tables {
		if tables[i].Name == name {
			return &tables[i]
		}
	}
	return nil
}

// byteOrderDefault says whether the database's default collation orders
// text by its bytes.
func byteOrderDefault(tables []Table) bool {
	for i := range tables {
		if f := tables[i].Facts; f != nil && f.Default.Name != "" {
			return f.Default.Order == wal.CollBytes
		}
	}
	return false
}

// describedOther is the answer of a psql \d query naming the OID of a
// relation that is not a followed table: none for an OID sidecar's
// catalog does not list (as PostgreSQL, for a database holding the
// followed tables), refused for a view, index, sequence or partitioned
// table, which PostgreSQL describes.
func describedOther(ex *execCtx, oid uint32, what string) error {
	tables := ex.src.Tables()
	for _, r := range catalogRels(tables) {
		if r.oid == oid {
			return unsupported(-1, what+" of "+r.schema+"."+r.name+" (sidecar's psql support describes tables)")
		}
	}
	_, ns := (&pgCatCtx{tables: tables}).namespaces()
	for _, v := range listedViews(tables, ns) {
		if v.OID == oid {
			return unsupported(-1, what+" of the view "+v.Schema+"."+v.Name+" (sidecar's psql support describes tables)")
		}
	}
	parts, _ := partitionedClasses(tables)
	for _, a := range parts {
		if a.OID == oid {
			return unsupported(-1, what+" of the partitioned table "+a.Schema+"."+a.Name+" (its partition key and partitions' bounds are not read)")
		}
	}
	for i := range tables {
		if f := tables[i].Facts; f != nil && f.Inherits != nil {
			for _, p := range f.Inherits.Parents {
				if p.OID == oid {
					return unsupported(-1, what+" of "+p.Schema+"."+p.Name+" (a table sidecar does not follow: "+tables[i].Name+" inherits from it)")
				}
			}
		}
	}
	return nil
}
