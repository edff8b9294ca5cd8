package sqlfront

import "github.com/sidecar-dev/sidecar/types"

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
