package sqlfront

import (
	"context"
	"errors"
)

// This file is the direct path of row-returning selects whose answer is
// the stored rows as they are: one followed table, every target a plain
// column, no grouping or DISTINCT, no ORDER BY but the key order the rows
// are read in (readInOrder), and a WHERE that the
// primary-key pushdown implements exactly (point gets on every key
// column, IN on a one-column key, or an integer first-key-column range of
// >=, <, <= and =) or none, so it is not evaluated per row. Such rows go
// from the canonical row bytes (rowenc) of the in-memory HEAD (or the
// tree) to DataRow values without conversion, when every result column
// is in text format: pgbench -S's statement and key-range scans.

// rawReader is the part of a Source the direct path reads through
// (HistorySource implements it).
type rawReader interface {
	GetRaw(ctx context.Context, v Version, t *Table, key []string) ([]byte, bool, error)
	ScanRaw(ctx context.Context, v Version, t *Table, from, to string, raw func([]byte) error) error
}

// errNotDirect: the direct path does not apply to this execution.
var errNotDirect = errors.New("not for the direct path")

// planDirect sets p.direct when p qualifies (see the file comment).
func (pl *planner) planDirect() {
	p := pl.p
	if p.kind != "select" || len(p.from) != 1 || p.from[0].table == nil || p.grouping || p.distinct || p.agg != nil || p.noRows {
		return
	}
	for _, e := range p.targets {
		if _, ok := e.(*colExpr); !ok {
			return
		}
	}
	it := p.from[0]
	if p.where != nil && (len(it.table.KeyCols) == 0 || !whereCovered(p.where, it)) {
		return
	}
	if !readInOrder(p) {
		return
	}
	p.direct = true
}

// readInOrder says whether the direct path's rows come in p's ORDER BY
// order: no ORDER BY; a WHERE naming one whole key (at most one row);
// or an ORDER BY of every primary-key column in the key's order,
// ascending (NULLS LAST, and key columns hold no NULL), each of an
// integer type, whose key encoding orders as the integers do, when the
// rows are read in key order (a range or every row: the model's index
// and the tree are in key order). A range read of a key with ORDER BY
// it (`WHERE id BETWEEN $1 AND $2 ORDER BY id`) is then sent as stored.
func readInOrder(p *plan) bool {
	if len(p.order) == 0 {
		return true
	}
	it := p.from[0]
	t := it.table
	if len(it.keyEq) > 0 {
		return len(it.keyEq) == 1
	}
	if len(p.order) != len(t.KeyCols) {
		return false
	}
	for i, k := range p.order {
		c, ok := k.e.(*colExpr)
		col := t.Columns[t.KeyCols[i]]
		if !ok || k.desc || k.nullsFirst || c.idx != it.base+t.KeyCols[i] || c.t != col.TypeOID || !isIntType(c.t) || c.t == oidOID {
			return false
		}
	}
	return true
}

// whereCovered says whether the pushed-down key predicates of it are
// exactly where: every conjunct was turned into the point gets or the key
// range, so reading those rows is the whole filter.
func whereCovered(where expr, it *fromItem) bool {
	t := it.table
	cs := conjuncts(where)
	isKeyCol := func(c *colExpr, k int) bool {
		col := t.Columns[t.KeyCols[k]]
		return c.idx == it.base+t.KeyCols[k] && c.t == col.TypeOID
	}
	if len(it.keyEq) > 0 {
		if in, ok := cs[0].(*inExpr); ok && len(cs) == 1 {
			c, isCol := in.arg.(*colExpr)
			return isCol && !in.not && len(t.KeyCols) == 1 && isKeyCol(c, 0) && in.t == c.t && len(it.keyEq) == len(in.list)
		}
		if len(cs) != len(t.KeyCols) {
			return false
		}
		seen := make([]bool, len(t.KeyCols))
		for _, x := range cs {
			ce, ok := x.(*cmpExpr)
			if !ok {
				return false
			}
			col, val, op, ok := colCmp(ce)
			if !ok || op != "=" || ce.t != col.t {
				return false
			}
			matched := false
			for k := range t.KeyCols {
				if isKeyCol(col, k) && !seen[k] && it.keyEq[0][k] == val {
					seen[k], matched = true, true
					break
				}
			}
			if !matched {
				return false
			}
		}
		return len(it.keyEq) == 1
	}
	if !isIntType(it.keyType) || it.keyType == oidOID || it.likePat != nil || it.lo != nil && !it.loIncl {
		return false
	}
	for _, x := range cs {
		ce, ok := x.(*cmpExpr)
		if !ok {
			return false
		}
		col, val, op, ok := colCmp(ce)
		if !ok || !isKeyCol(col, 0) || ce.t != col.t {
			return false
		}
		switch op {
		case "=":
			if it.lo != val || it.hi != val {
				return false
			}
		case ">=":
			if it.lo != val {
				return false
			}
		case "<", "<=":
			if it.hi != val {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// runDirect reads the rows of a direct plan and hands each canonical row
// to ex.raw, skipping offset and stopping after limit (−1: none).
// errNotDirect: the source cannot (the caller takes the general path).
func (p *plan) runDirect(ex *execCtx, limit, offset int64) error {
	rr, ok := ex.src.(rawReader)
	if !ok {
		return errNotDirect
	}
	it := p.from[0]
	v, err := ex.sess.versionFor(ex.ctx, it.asOf)
	if err != nil {
		return err
	}
	t, err := ex.src.Table(ex.ctx, v, it.table.Name)
	if err != nil {
		return err
	}
	if !sameColumns(&t, it.table) {
		return errReplan
	}
	ck, err := p.enumCheckFor(ex) // enum_stale.go
	if err != nil {
		return err
	}
	var n int64
	emit := func(row []byte) error {
		if offset > 0 {
			offset--
			return nil
		}
		if ck != nil {
			if err := ck.stored(row); err != nil {
				return err
			}
		}
		if err := ex.raw(row); err != nil {
			return err
		}
		if n++; limit >= 0 && n >= limit {
			return errStopScan
		}
		return nil
	}
	e := &env{params: ex.params, ex: ex}
	if len(it.keyEq) > 0 {
		keys, err := it.keyTexts(e, &t)
		if err != nil {
			return err
		}
		for _, key := range keys {
			row, found, err := rr.GetRaw(ex.ctx, v, &t, key)
			if err != nil {
				return err
			}
			if !found {
				continue
			}
			if err := emit(row); err != nil {
				if err == errStopScan {
					return nil
				}
				return err
			}
		}
		return nil
	}
	from, to, _, empty, err := it.bounds(e)
	if err != nil || empty {
		return err
	}
	err = rr.ScanRaw(ex.ctx, v, &t, from, to, func(row []byte) error {
		if err := ex.ctx.Err(); err != nil {
			return err
		}
		return emit(row)
	})
	if err == errStopScan {
		return nil
	}
	return err
}

// directFormats says whether the direct path can send p's columns in
// formats from the stored texts: text always; binary for integer
// columns (the text read and sent as int2send/int4send/int8send) and
// text and varchar (whose send form is the text). A binary client
// (pgx asks for integers in binary) then reads ranges as stored too.
func directFormats(p *plan, formats []int16) bool {
	for i, e := range p.targets {
		if formatFor(formats, i) == 0 {
			continue
		}
		switch t := e.typ(); {
		case t == oidText || t == oidVarchar:
		case isIntType(t) && intSendWidth(t) != 0:
		default:
			return false
		}
	}
	return true
}

// directSend is, per target of p, the width in bytes of its binary
// integer form when formats ask for it in binary, else 0 (sent as
// stored).
func directSend(p *plan, formats []int16) []int {
	w := make([]int, len(p.targets))
	for i, e := range p.targets {
		if formatFor(formats, i) != 0 && isIntType(e.typ()) {
			w[i] = intSendWidth(e.typ())
		}
	}
	return w
}

// intSendWidth is the size of integer type t's binary form (0: not
// int2, int4 or int8).
func intSendWidth(t uint32) int {
	switch t {
	case oidInt2:
		return 2
	case oidInt4:
		return 4
	case oidInt8:
		return 8
	}
	return 0
}

// appendIntSend appends the big-endian w-byte form of the canonical
// integer text txt (an optional '-', then digits); ok=false when txt is
// not one or does not fit w bytes.
func appendIntSend(dst []byte, w int, txt []byte) ([]byte, bool) {
	neg := len(txt) > 0 && txt[0] == '-'
	digits := txt
	if neg {
		digits = txt[1:]
	}
	if len(digits) == 0 || len(digits) > 19 {
		return dst, false
	}
	var u uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return dst, false
		}
		u = u*10 + uint64(c-'0')
	}
	limit := uint64(1) << (8*w - 1) // |min| of the type
	if !neg && u >= limit || neg && u > limit {
		return dst, false
	}
	v := u
	if neg {
		v = -u
	}
	for i := w - 1; i >= 0; i-- {
		dst = append(dst, byte(v>>(8*i)))
	}
	return dst, true
}
