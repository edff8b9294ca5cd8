package sqlfront

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/sidecar-dev/sidecar/wal"
)

// A followed table's columns as PostgreSQL's catalog lists them: the
// columns the mirror holds (Table.Columns, the stream's) and the ones the
// stream does not carry (wal.Facts.NotCarriedColumns: generated columns),
// each at its attnum (wal.Facts.AttNums; gaps where columns were
// dropped). Every catalog listing of columns — pg_attribute, pg_attrdef,
// information_schema.columns, psql's \d, pgjdbc's getColumns, conkey,
// indkey, col_description — reads this one view, so they agree with
// each other and with PostgreSQL. The data path is unchanged: a
// statement reading the table itself still refuses naming a column the
// stream does not carry (notcarried.go).
//
// A record written before the attnums were read lists the carried
// columns at their positions (as before: right unless a column was
// dropped); a table with columns not carried whose definitions were not
// read cannot be listed (tableColumnsView's ok is false: its listings
// are refused, or unknown rows on the engine).

// catColumn is one column of a followed table as the catalog lists it.
type catColumn struct {
	Column
	attnum int16
	// pos is the column's index in Table.Columns, -1 for a column the
	// stream does not carry.
	pos int
	// facts are pg_attribute's and pg_attrdef's facts of the column (nil
	// when not read: a record written before).
	facts *wal.ColumnFacts
	// nc is the definition of a column the stream does not carry.
	nc *wal.NotCarriedColumn
}

// tableColumnsView returns t's columns in attnum order; ok is false when
// t has columns the stream does not carry whose definitions were not
// read.
func tableColumnsView(t *Table) (cols []catColumn, ok bool) {
	f := t.Facts
	read := f.ColumnNumbersRead() && len(f.AttNums) == len(t.Columns) && len(f.NotCarriedColumns) == len(f.NotCarried)
	if f != nil && len(f.NotCarried) > 0 && !read {
		return nil, false
	}
	cols = make([]catColumn, 0, len(t.Columns)+notCarriedCount(f))
	for i, c := range t.Columns {
		n := int16(i + 1)
		if read {
			n = f.AttNums[i]
		}
		cols = append(cols, catColumn{Column: c, attnum: n, pos: i, facts: colFacts(t, i)})
	}
	if read {
		for i := range f.NotCarriedColumns {
			nc := &f.NotCarriedColumns[i]
			cols = append(cols, catColumn{
				Column: Column{Name: nc.Name, TypeOID: nc.TypeOID, TypeMod: nc.TypeMod, TypeName: nc.TypeName, Collation: nc.Collation},
				attnum: nc.AttNum, pos: -1, nc: nc,
				facts: &wal.ColumnFacts{NotNull: nc.NotNull, HasDefault: true, Default: nc.Expr, DefaultPretty: nc.ExprPretty, Generated: nc.Generated},
			})
		}
		slices.SortStableFunc(cols, func(a, b catColumn) int { return cmp.Compare(a.attnum, b.attnum) })
	}
	return cols, true
}

// notCarriedUnread is the refusal of a listing of t's columns when
// tableColumnsView cannot list them.
func notCarriedUnread(what string, t *Table) error {
	return unsupported(-1, what+" of "+t.Name+": the definitions of its generated columns were not read (copied by an older sidecar; a resync reads them)")
}

// comment is the column's col_description ("" none).
func (c *catColumn) comment(s *wal.SchemaFacts) string {
	if c.nc != nil {
		return c.nc.Comment
	}
	return nth(s.ColumnComments, c.pos)
}

// storage is the column's attstorage, attcompression and attstattarget
// as psql's \d+ prints them (s.StorageRead).
func (c *catColumn) storage(s *wal.SchemaFacts) (storage, compression, target string) {
	if c.nc != nil {
		return c.nc.Storage, c.nc.Compression, c.nc.StatTarget
	}
	return nth(s.ColumnStorage, c.pos), nth(s.ColumnCompression, c.pos), nth(s.ColumnStatTargets, c.pos)
}

// sequence is pg_get_serial_sequence of the column ("" none: a
// generated column owns none).
func (c *catColumn) sequence(s *wal.SchemaFacts) string {
	if c.nc != nil {
		return ""
	}
	return nth(s.Sequences, c.pos)
}

// columnAttnum is the attnum of t's column named name (ok false: no such
// column, or t's columns cannot be listed).
func columnAttnum(t *Table, name string) (int16, bool) {
	cols, ok := tableColumnsView(t)
	if !ok || name == "" {
		return 0, false
	}
	for _, c := range cols {
		if c.Name == name {
			return c.attnum, true
		}
	}
	return 0, false
}

// wireAttnum is the attnum a RowDescription gives t's column at position
// pos (1-based, in t.Columns), as pg_attribute lists it.
func wireAttnum(t *Table, pos int16) int16 {
	if f := t.Facts; f.ColumnNumbersRead() && len(f.AttNums) == len(t.Columns) && pos >= 1 && int(pos) <= len(f.AttNums) {
		return f.AttNums[pos-1]
	}
	return pos
}

func notCarriedCount(f *wal.Facts) int {
	if f == nil {
		return 0
	}
	return len(f.NotCarriedColumns)
}

// droppedAttributes are pg_attribute's rows of t's dropped columns, when
// read (wal.Facts.Dropped): PostgreSQL keeps them, renamed, with
// atttypid 0, attnotnull, atthasdef and atthasmissing false, no
// generation, and the former column's length, typmod and identity.
func droppedAttributes(t *Table) [][]*string {
	if t.Facts == nil {
		return nil
	}
	var out [][]*string
	u := pgUnknown
	for _, d := range t.Facts.Dropped {
		name := "........pg.dropped." + strconv.Itoa(int(d.AttNum)) + "........"
		out = append(out, []*string{u32(t.OID), sv(name), sv("0"), u, iv(int64(d.Len)), iv(int64(d.AttNum)), u, sv("-1"), iv(int64(d.TypeMod)),
			u, u, u, u, sv("f"), sv("f"), sv("f"), sv(charText(d.Identity)), sv(""), sv("t"), u, u, u, nil, nil, nil, nil})
	}
	return out
}

// relNatts is pg_class.relnatts of t: the highest attnum, dropped
// columns included (unknown when the attnums were not read).
func relNatts(t *Table) *string {
	if !t.Facts.ColumnNumbersRead() {
		return pgUnknown
	}
	return iv(int64(t.Facts.RelNatts()))
}
