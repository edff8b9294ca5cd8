package types

import (
	"encoding/binary"
	"strings"
)

// int2vector and oidvector: the catalog's one-dimensional arrays with
// lower bound 0 whose text form is the elements separated by blanks
// ("1 2"), as pg_index.indkey and indclass are. They are arrays to the
// engine (unnest, = ANY, generate_subscripts from 0, subscripts from
// 0); their binary receive is refused and an array is not cast to them
// (PostgreSQL has no such cast).

// The vector types.
const (
	Int2Vector OID = 22
	OidVector  OID = 30
	NodeTree   OID = 194 // pg_node_tree (catalog.go)
)

// IsVector says whether oid is int2vector or oidvector.
func IsVector(oid OID) bool { return oid == Int2Vector || oid == OidVector }

// parseVector is int2vectorin/oidvectorin: elements separated by
// blanks, each read by the element type's input function.
func parseVector(oid OID, s string) (*Array, error) {
	elem := ElemOf(oid)
	out := &Array{Elem: elem, Elems: []Value{}}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r < 0x80 && isArraySpace(byte(r)) }) {
		v, err := in(elem, f)
		if err != nil {
			return nil, err
		}
		out.Elems = append(out.Elems, v)
	}
	return out, nil
}

// appendVector is int2vectorout/oidvectorout.
func appendVector(dst []byte, a *Array) []byte {
	for i, v := range a.Elems {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = AppendOut(dst, a.Elem, v)
	}
	return dst
}

// appendVectorSend is int2vectorsend/oidvectorsend: array_send's form
// with lower bound 0.
func appendVectorSend(dst []byte, a *Array) ([]byte, error) {
	at := len(dst)
	dst, err := appendArraySend(dst, a)
	if err != nil || len(a.Elems) == 0 {
		return dst, err
	}
	binary.BigEndian.PutUint32(dst[at+16:], 0) // ndim, nulls, elem, length, then the lower bound
	return dst, nil
}

// VectorLower is the lower bound of a value of array type oid's
// subscripts: 0 for the vector types, 1 otherwise.
func VectorLower(oid OID) int64 {
	if IsVector(oid) {
		return 0
	}
	return 1
}
