package types

import "unsafe"

// BoxSlab hands out Values holding a T — an integer, date, timestamp or
// float, none of which a Value holds without an allocation of its own
// (Go boxes a non-pointer value into a new heap word, but for small
// integers) — their data carved from a slab of boxSlabBytes instead of
// one tiny allocation per value: a scan decoding a column of a typed page
// boxes every value it hands on. A Value from it is an ordinary Value of
// dynamic type T (==, type switches, hashing see no difference); its data
// is never written again. Like DecimalSlab's, the slabs are small: a value
// kept alone (a group's key, a min) keeps at most boxSlabBytes alive. The
// zero BoxSlab is ready; it is not safe for concurrent use.
type BoxSlab[T int64 | DateVal | TimestampVal | float64] struct {
	typ  unsafe.Pointer
	free []T
}

// boxSlabBytes is the bytes of one slab (below a DecimalSlab's 64
// numerics).
const boxSlabBytes = 1024

// eface is the runtime's layout of an interface without methods (any):
// its dynamic type, and a pointer to its value for every T of BoxSlab.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// Box is v as a Value.
func (s *BoxSlab[T]) Box(v T) Value {
	if len(s.free) == 0 {
		if s.typ == nil {
			var z Value = v
			s.typ = (*eface)(unsafe.Pointer(&z)).typ
		}
		s.free = make([]T, boxSlabBytes/unsafe.Sizeof(v))
	}
	p := &s.free[0]
	*p = v
	s.free = s.free[1:]
	var out Value
	e := (*eface)(unsafe.Pointer(&out))
	e.typ, e.data = s.typ, unsafe.Pointer(p)
	return out
}
