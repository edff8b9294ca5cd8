package query

import (
	"bytes"
	"math/big"
	"strconv"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// Index key bounds: the conjuncts of WHERE on the primary-key columns,
// in key order, give a byte range [from, to) of the radix index's keys
// (rowenc's order-preserving key encoding) that holds every row WHERE can
// accept: equalities on the leading key columns make a prefix, and the
// next column's comparisons (=, <, <=, >, >=, BETWEEN, IN, prefix LIKE)
// bound it. Strict bounds are widened to inclusive ones and numerics are
// bounded by value over every display scale, so the range is a superset;
// the whole WHERE is still evaluated on its rows.
//
// Kinds bounded: integers, text-like columns (bytewise, as the engine
// compares them; the key encoding is byte order), numeric (rowenc orders
// by value, then display scale), date, timestamp and timestamptz (ISO
// texts under TimeZone=UTC, which rowenc orders as instants).

// KeyBounds returns the index key range of the rows WHERE can accept,
// for a table whose primary key is the columns keys (schema indexes, in
// key order) with the key kinds kinds; ok=false when WHERE bounds no key
// column. An empty range has from == to.
func (p *Plan) KeyBounds(keys []int, kinds []rowenc.KeyKind) (from, to []byte, ok bool) {
	if p.where == nil || len(keys) == 0 || len(keys) != len(kinds) {
		return nil, nil, false
	}
	conj := conjuncts(p.where, nil)
	var prefix, lo, hi []byte
	for i, c := range keys {
		b := p.columnBounds(conj, c, kinds[i])
		if b.empty {
			e := append([]byte(nil), prefix...)
			return e, e, true
		}
		if b.eq != nil {
			prefix = append(prefix, b.eq...)
			continue
		}
		lo, hi = b.lo, b.hi
		break
	}
	if len(prefix) == 0 && lo == nil && hi == nil {
		return nil, nil, false
	}
	from = append(append([]byte(nil), prefix...), lo...)
	switch {
	case hi != nil:
		to = append(append([]byte(nil), prefix...), hi...)
	case len(prefix) > 0:
		to = prefixEnd(prefix)
	}
	if to != nil && bytes.Compare(from, to) >= 0 {
		to = from
	}
	return from, to, true
}

// conjuncts flattens the top-level ANDs of n.
func conjuncts(n *node, dst []*node) []*node {
	if n.op == "and" {
		for _, a := range n.args {
			dst = conjuncts(a, dst)
		}
		return dst
	}
	return append(dst, n)
}

// colBounds is what the conjuncts say of one key column: eq, the one
// value's encoding (then the next column can be bounded too); else lo
// (inclusive) and hi (exclusive), nil when unbounded; empty when no value
// can match.
type colBounds struct {
	eq, lo, hi []byte
	empty      bool
}

func (p *Plan) columnBounds(conj []*node, c int, kk rowenc.KeyKind) colBounds {
	k := p.schema.Columns[c].Kind
	switch {
	case k == heap.KindInt2 || k == heap.KindInt4 || k == heap.KindInt8:
		if kk != rowenc.KindInt2 && kk != rowenc.KindInt4 && kk != rowenc.KindInt8 {
			return colBounds{}
		}
		r, ok := p.keyRange(c, k)
		if !ok {
			return colBounds{}
		}
		if r.Empty {
			return colBounds{empty: true}
		}
		var b colBounds
		if r.HasLo {
			b.lo, _ = rowenc.AppendKeyColumn(nil, kk, strconv.AppendInt(nil, r.Lo, 10))
		}
		if r.HasHi {
			e, _ := rowenc.AppendKeyColumn(nil, kk, strconv.AppendInt(nil, r.Hi, 10))
			if r.HasLo && r.Lo == r.Hi {
				return colBounds{eq: e}
			}
			b.hi = prefixEnd(e)
		}
		return b
	case k == heap.KindText && kk == rowenc.KindBytes,
		k == heap.KindNumeric && kk == rowenc.KindNumeric,
		k == heap.KindDate && kk == rowenc.KindDate,
		(k == heap.KindTimestamp || k == heap.KindTimestampTZ) && kk == rowenc.KindTimestamp:
	default:
		return colBounds{}
	}
	var b colBounds
	var eq []byte
	eqs := 0 // conjuncts that are one equality
	raise := func(lo []byte) {
		if b.lo == nil || bytes.Compare(lo, b.lo) > 0 {
			b.lo = lo
		}
	}
	lower := func(hi []byte) {
		if hi == nil {
			return // above every key: no bound
		}
		if b.hi == nil || bytes.Compare(hi, b.hi) < 0 {
			b.hi = hi
		}
	}
	for _, n := range conj {
		if n.col != c || len(n.args) > 0 || n.typed != nil { // typed: its text's bytes do not order its values
			continue
		}
		switch n.op {
		case "=", ">=", ">", "<=", "<", "between", "in", "like":
		default:
			continue
		}
		if n.op == "like" {
			e, err := rowenc.AppendKeyColumn(nil, kk, []byte(n.vals[0].S))
			if err != nil || len(e) < 2 {
				continue
			}
			e = e[:len(e)-2] // the escaped prefix, without the terminator
			if len(e) == 0 {
				continue // LIKE '%': every text
			}
			raise(e)
			lower(prefixEnd(e))
			continue
		}
		enc := make([]keyEnc, len(n.vals))
		bad := false
		for i, v := range n.vals {
			if enc[i], bad = encodeBound(kk, k, v); bad {
				break
			}
		}
		if bad {
			continue
		}
		switch n.op {
		case "=":
			raise(enc[0].lo)
			lower(enc[0].hi)
			if enc[0].exact != nil {
				if eq != nil && !bytes.Equal(eq, enc[0].exact) {
					return colBounds{empty: true}
				}
				eq = enc[0].exact
				eqs++
			}
		case ">=", ">":
			raise(enc[0].lo)
		case "<=", "<":
			lower(enc[0].hi)
		case "between":
			raise(enc[0].lo)
			lower(enc[1].hi)
		case "in":
			lo, hi := enc[0].lo, enc[0].hi
			same := enc[0].exact != nil
			for _, e := range enc[1:] {
				if bytes.Compare(e.lo, lo) < 0 {
					lo = e.lo
				}
				if hi != nil && (e.hi == nil || bytes.Compare(e.hi, hi) > 0) {
					hi = e.hi
				}
				same = same && bytes.Equal(e.exact, enc[0].exact)
			}
			raise(lo)
			lower(hi)
			if same {
				if eq != nil && !bytes.Equal(eq, enc[0].exact) {
					return colBounds{empty: true}
				}
				eq = enc[0].exact
				eqs++
			}
		}
	}
	if b.lo != nil && b.hi != nil && bytes.Compare(b.lo, b.hi) >= 0 {
		return colBounds{empty: true}
	}
	if eqs > 0 {
		return colBounds{eq: eq}
	}
	return b
}

// keyEnc is one literal's place among a key column's encodings: lo is at
// or below every key of that value, hi (exclusive; nil: none) above
// every one; exact is the one encoding when the value has only one.
type keyEnc struct{ lo, hi, exact []byte }

// encodeBound encodes literal v (column kind k) under key kind kk;
// bad=true when it has no encoding.
func encodeBound(kk rowenc.KeyKind, k heap.Kind, v Value) (keyEnc, bool) {
	var text []byte
	switch k {
	case heap.KindText:
		text = []byte(v.S)
	case heap.KindNumeric:
		text = []byte(minimalNumeric(v))
	default:
		text = heap.AppendText(nil, k, v.I, 0, 0)
	}
	e, err := rowenc.AppendKeyColumn(nil, kk, text)
	if err != nil {
		return keyEnc{}, true
	}
	if kk == rowenc.KindNumeric && v.S == "" {
		// Finite keys order by value, then display scale (the last two
		// bytes): a value's keys are every scale after its value bytes.
		// NaN and ±Infinity are one tag byte.
		if len(e) < 2 {
			return keyEnc{}, true
		}
		val := e[:len(e)-2]
		lo := append(append([]byte(nil), val...), 0, 0)
		return keyEnc{lo: lo, hi: prefixEnd(val)}, false
	}
	return keyEnc{lo: e, hi: prefixEnd(e), exact: e}, false
}

// minimalNumeric prints a numeric literal at its least display scale
// (trailing zeros stripped), the first of its value's keys.
func minimalNumeric(v Value) string {
	if v.S != "" {
		return v.S // NaN, Infinity, -Infinity
	}
	n, s := v.Num, v.Scale
	if n == nil {
		n = big.NewInt(v.I)
	}
	n = new(big.Int).Set(n)
	ten, r := big.NewInt(10), new(big.Int)
	for s > 0 {
		q, m := new(big.Int).QuoRem(n, ten, r)
		if m.Sign() != 0 {
			break
		}
		n, s = q, s-1
	}
	return formatNumeric(n, s)
}
