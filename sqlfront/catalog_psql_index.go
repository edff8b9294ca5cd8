package sqlfront

import (
	"strings"

	"github.com/sidecar-dev/sidecar/wal"
)

// psql's \d and \d+ of an index (psql 15's texts; 14's footer has no
// indnullsnotdistinct), answered from the followed table's index facts
// and the index's own columns the copy and the poll read (access facts,
// pgcatalog_access.go): the relation query (catalog_psql.go's dinfo and
// dinfoplus, indexInfo), the index's columns and its footer. An index
// in a tablespace of its own is refused (pg_tablespace is not served),
// as is an index of a partitioned table (relkind 'I').
var psqlIndexQueries = map[string]string{
	"dicols": `SELECT a.attname,
  pg_catalog.format_type(a.atttypid, a.atttypmod),
  CASE WHEN a.attnum <= (SELECT i.indnkeyatts FROM pg_catalog.pg_index i WHERE i.indexrelid = '16394') THEN 'yes' ELSE 'no' END AS is_key,
  pg_catalog.pg_get_indexdef(a.attrelid, a.attnum, TRUE) AS indexdef
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = '16394' AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum;`,
	"dicolsplus": `SELECT a.attname,
  pg_catalog.format_type(a.atttypid, a.atttypmod),
  CASE WHEN a.attnum <= (SELECT i.indnkeyatts FROM pg_catalog.pg_index i WHERE i.indexrelid = '16395') THEN 'yes' ELSE 'no' END AS is_key,
  pg_catalog.pg_get_indexdef(a.attrelid, a.attnum, TRUE) AS indexdef,
  a.attstorage,
  CASE WHEN a.attstattarget=-1 THEN NULL ELSE a.attstattarget END AS attstattarget
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = '16395' AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum;`,
	"difooter":   indexFooterQuery,
	"difooter14": strings.Replace(indexFooterQuery, "i.indnullsnotdistinct,", "false AS indnullsnotdistinct,", 1),
}

const indexFooterQuery = `SELECT i.indisunique, i.indisprimary, i.indisclustered, i.indisvalid,
  (NOT i.indimmediate) AND EXISTS (SELECT 1 FROM pg_catalog.pg_constraint WHERE conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x') AND condeferrable) AS condeferrable,
  (NOT i.indimmediate) AND EXISTS (SELECT 1 FROM pg_catalog.pg_constraint WHERE conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x') AND condeferred) AS condeferred,
i.indisreplident,
i.indnullsnotdistinct,
  a.amname, c2.relname, pg_catalog.pg_get_expr(i.indpred, i.indrelid, true)
FROM pg_catalog.pg_index i, pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_am a
WHERE i.indexrelid = c.oid AND c.oid = '16394' AND c.relam = a.oid
AND i.indrelid = c2.oid;`

var indexFooterCols = []string{"indisunique", "indisprimary", "indisclustered", "indisvalid", "condeferrable", "condeferred", "indisreplident",
	"indnullsnotdistinct", "amname", "relname", "pg_get_expr"}

// psqlIndexHandlers answer psqlIndexQueries.
var psqlIndexHandlers = map[string]*canned{
	"dicols":     {cols: []string{"attname", "format_type", "is_key", "indexdef"}, rows: indexColumnRows(false)},
	"dicolsplus": {cols: []string{"attname", "format_type", "is_key", "indexdef", "attstorage", "attstattarget"}, rows: indexColumnRows(true)},
	"difooter":   {cols: indexFooterCols, rows: indexFooter(true)},
	"difooter14": {cols: indexFooterCols, rows: indexFooter(false)},
}

// describedIndex is the index the query's OID names when psql may
// describe it (its columns read; not in a tablespace of its own), with
// its table; nil when the OID names no such index.
func describedIndex(ex *execCtx, consts []string) (*Table, *indexDesc, error) {
	t, x, cols := indexColumns(ex.src.Tables(), oidLiteral(consts))
	if t == nil {
		return nil, nil, nil
	}
	if cols.Tablespace != 0 {
		return nil, nil, unsupported(-1, "\\d of the index "+x.Name+" in a tablespace of its own (pg_tablespace is not served)")
	}
	return t, &indexDesc{IndexFacts: x, IndexColumns: cols}, nil
}

// indexDesc is an index's facts and its own columns.
type indexDesc struct {
	*wal.IndexFacts
	*wal.IndexColumns
}

// indexInfo answers psql's relation query (dinfo, dinfoplus) for an
// index; no rows when the OID names none sidecar describes.
func indexInfo(ex *execCtx, consts []string, verbose bool) ([][]*string, error) {
	_, x, err := describedIndex(ex, consts)
	if x == nil {
		return nil, err
	}
	options := ""
	if verbose {
		if x.Detail == nil {
			return nil, unsupported(-1, "\\d+ of the index "+x.Name+": its options were not read (copied by an older sidecar; a resync reads them)")
		}
		options = strings.Join(x.Detail.RelOptions, ", ")
	}
	return [][]*string{{strp("0"), strp("i"), strp("f"), strp("f"), strp("f"), strp("f"), strp("f"), strp("f"), strp("f"), strp(options),
		strp("0"), strp(""), strp("p"), strp("n"), strp(x.Method)}}, nil
}

// indexColumnRows answers psql's index column query.
func indexColumnRows(verbose bool) func(ex *execCtx, consts []string) ([][]*string, error) {
	return func(ex *execCtx, consts []string) ([][]*string, error) {
		_, x, err := describedIndex(ex, consts)
		if x == nil {
			return nil, err
		}
		var rows [][]*string
		for i, c := range x.IndexColumns.Columns {
			key := "no"
			if i < int(x.KeyColumns) {
				key = "yes"
			}
			row := []*string{strp(c.Name), strp(c.Type), strp(key), strp(c.Def)}
			if verbose {
				row = append(row, strp(charText(c.Storage)), nonEmpty(c.StatTarget))
			}
			rows = append(rows, row)
		}
		return rows, nil
	}
}

// indexFooter answers psql's index footer query (nullsNotDistinct:
// 15's text, which reads indnullsnotdistinct; 14's says false).
func indexFooter(nullsNotDistinct bool) func(ex *execCtx, consts []string) ([][]*string, error) {
	return func(ex *execCtx, consts []string) ([][]*string, error) {
		t, x, err := describedIndex(ex, consts)
		if x == nil {
			return nil, err
		}
		var pred *string
		if x.Partial {
			if x.Detail == nil {
				return nil, unsupported(-1, "\\d of the partial index "+x.Name+": its predicate was not read (copied by an older sidecar; a resync reads it)")
			}
			pred = strp(x.Detail.PredPretty)
		}
		return [][]*string{{strp(boolText(x.Unique)), strp(boolText(x.Primary)), strp(boolText(x.Clustered)), strp(boolText(x.Valid)),
			strp(boolText(x.Deferrable)), strp(boolText(x.Deferred)), strp(boolText(x.ReplIdent)), strp(boolText(nullsNotDistinct && x.NullsNotDistinct)),
			strp(x.Method), strp(t.Rel), pred}}, nil
	}
}
