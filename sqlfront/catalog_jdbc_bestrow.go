package sqlfront

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/wal"
)

// pgjdbc's getBestRowIdentifier (issue 23): the primary key's columns of
// the table named, by attnum, from a subquery calling
// information_schema._pg_expandarray(i.indkey), which the engine does
// not serve — every call was refused. The query names its schema and
// table with = (pgjdbc's escapeQuotes); the answer comes from the
// followed tables' primary keys as getPrimaryKeys' does.

// isJDBCBestRow says whether query is pgjdbc's getBestRowIdentifier
// query.
func isJDBCBestRow(query string) bool {
	return strings.HasPrefix(query, "SELECT a.attname, a.atttypid, atttypmod FROM pg_catalog.pg_class ct ") &&
		strings.Contains(query, "information_schema._pg_expandarray(i.indkey) AS keys") &&
		strings.HasSuffix(strings.TrimSpace(query), " AND i.indisprimary  ORDER BY a.attnum")
}

// jdbcBestRowSpecs are its columns: pg_attribute's attname, atttypid and
// atttypmod.
var jdbcBestRowSpecs = []string{"attname:name@pg_attribute.attname", "atttypid:oid@pg_attribute.atttypid", "atttypmod:int4@pg_attribute.atttypmod"}

// jdbcBestRow answers the getBestRowIdentifier query: for each followed
// table its patterns name, the primary key's columns by attnum (name,
// type OID, typmod). A partitioned table above the followed partitions
// it names is refused (its primary key is not read), as is a table
// whose primary key or columns were not read.
func jdbcBestRow(ex *execCtx, query string) ([][]*string, error) {
	if err := jdbcPartitionedListed(ex, query, true, "getBestRowIdentifier"); err != nil {
		return nil, err
	}
	var out [][]*string
	err := jdbcPrimaryKeys(ex, query, "getBestRowIdentifier", func(t *Table, pk *wal.KeyConstraint) error {
		cols, ok := tableColumnsView(t) // catalog_columns.go: by attnum
		if !ok {
			return notCarriedUnread("getBestRowIdentifier", t)
		}
		found := 0
		for _, c := range cols {
			if slices.Contains(pk.Columns, c.Name) {
				out = append(out, []*string{strp(c.Name), u32(c.TypeOID), strp(strconv.Itoa(int(c.TypeMod)))})
				found++
			}
		}
		if found != len(pk.Columns) {
			return unsupported(-1, "getBestRowIdentifier of "+t.Name+": a primary key column sidecar does not list")
		}
		return nil
	})
	return out, err
}

// jdbcPrimaryKeys calls each with every followed table query's patterns
// name that has a primary key, refusing call of a table whose primary
// key was not read.
func jdbcPrimaryKeys(ex *execCtx, query, call string, each func(*Table, *wal.KeyConstraint) error) error {
	tables := ex.src.Tables()
	for i := range tables {
		t := &tables[i]
		if !matches(jdbcSchemaLike, query, t.Schema) || !matches(jdbcTableLike, query, t.Rel) {
			continue
		}
		if t.Facts == nil || t.Facts.Columns == nil {
			return unsupported(-1, call+" of "+t.Name+": its primary key was not read (copied by an older sidecar; a resync reads it)")
		}
		if pk := t.Facts.PrimaryKey; pk != nil {
			if err := each(t, pk); err != nil {
				return err
			}
		}
	}
	return nil
}
