package sqlfront

import (
	"encoding/binary"
	"strconv"

	"github.com/sidecar-dev/sidecar/types"
)

// arrayBinary is array_send of an array value given as PostgreSQL's
// output text (a followed column's stored text or sql/exec's output),
// byte for byte as PostgreSQL sends it (an empty array has zero
// dimensions; ±infinity elements included), which pgtype's encoder
// does not do. ok is false for an array the type catalog does not read
// (multi-dimensional, other lower bounds, element types it lacks):
// the caller encodes those as before.
func arrayBinary(t uint32, txt string) ([]byte, bool) {
	if !types.IsArray(t) {
		return nil, false
	}
	v, err := types.In(t, -1, txt)
	if err != nil {
		return nil, false
	}
	b, err := types.Send(t, v)
	if err != nil {
		return nil, false
	}
	return b, true
}

// arrayBitmapSend is array_send of a, an array sql/exec computed whose
// PostgreSQL datum keeps a null bitmap with no NULL element left in it
// (types.Array.NullBitmap: a slice of an array that had NULLs, as in
// tuplesort.sql's (array_agg(…))[0:5]): its output text txt reads back
// without the bitmap, so the send form built from it has the has-nulls
// flag set again, as PostgreSQL's array_send writes it.
func arrayBitmapSend(t uint32, a *types.Array, txt string) ([]byte, error) {
	b, ok, err := catalogBinary(t, txt)
	if err != nil {
		return nil, err
	}
	if !ok || len(b) < 8 {
		return nil, unsupported(-1, "binary format for type "+typeName(t)).hint("request text format for this column")
	}
	if binary.BigEndian.Uint32(b) > 0 && a.HasNullBitmap() { // ndim 0: an empty array has no bitmap
		binary.BigEndian.PutUint32(b[4:8], 1)
	}
	return b, nil
}

// vecParam is bound parameter n (decoded by the session as type t) as
// sql/exec's value: through its text, elementwise for an array. A value
// it cannot convert fails the statement rather than reading as NULL.
func vecParam(v Value, t uint32, n int) (types.Value, error) {
	if a, ok := v.(*arrayValue); ok && types.IsArray(t) {
		elem := types.ElemOf(t)
		out := &types.Array{Elem: elem, Elems: make([]types.Value, len(a.vals))}
		for k, e := range a.vals {
			if e == nil {
				continue
			}
			x, err := vecParam(e, elem, n)
			if err != nil {
				return nil, err
			}
			out.Elems[k] = x
		}
		return out, nil
	}
	txt, ok := render(v, t)
	if !ok {
		return nil, unsupported(-1, "parameter $"+strconv.Itoa(n)+" of type "+typeName(t)+" on this path")
	}
	return types.In(t, -1, txt)
}
