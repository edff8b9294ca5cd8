package sqlfront

import (
	"github.com/sidecar-dev/sidecar/rowenc"
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/wal"
)

// byteOrderColumn says whether col of t is text or varchar ordered, in
// PostgreSQL, by its UTF-8 bytes: its own collation, or the database
// default it names, is a byte-order one (C, POSIX, ucs_basic, C.UTF-8,
// the builtin provider) as the copy read it. Its primary-key encoding
// (rowenc.KindBytes) is then its ORDER BY order, so sql/opt may read it
// in key order (plan.ColumnDef.ByteOrder, keyorder.go). A collation not
// read (an old record, a relation from the stream) is not known to be
// byte order: such a key keeps its sort.
func byteOrderColumn(t *Table, col Column) bool {
	if col.TypeOID != oidText && col.TypeOID != oidVarchar {
		return false
	}
	switch col.Collation.Name {
	case "":
		return false
	case "default":
		return t.Facts != nil && t.Facts.Default.Order == wal.CollBytes
	}
	return col.Collation.Order == wal.CollBytes
}

// keyOrderKind is the key encoding whose byte order is col's ORDER BY
// order in PostgreSQL (0: none): integers, numeric (NaN last), date,
// bool; timestamp and timestamptz (rowenc.KindTimestamp: the mirror
// stores timestamptz in UTC, so its fields order as the instants);
// text and varchar under a byte-order collation (rowenc.KindBytes).
func keyOrderKind(col lplan.ColumnDef) rowenc.KeyKind {
	if (col.Type.OID == lplan.Text || col.Type.OID == lplan.Varchar) && col.ByteOrder {
		return rowenc.KindBytes
	}
	return orderedKinds[col.Type.OID]
}

// orderedKinds are the types whose key encoding orders as their values.
var orderedKinds = map[lplan.OID]rowenc.KeyKind{
	lplan.Int2: rowenc.KindInt2, lplan.Int4: rowenc.KindInt4, lplan.Int8: rowenc.KindInt8, lplan.Numeric: rowenc.KindNumeric,
	lplan.Date: rowenc.KindDate, lplan.Bool: rowenc.KindBool, lplan.Timestamp: rowenc.KindTimestamp, lplan.Timestamptz: rowenc.KindTimestamp,
}
