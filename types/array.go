package types

import (
	"encoding/binary"
	"hash/maphash"
	"strings"
)

// Array is the value of a one-dimensional array type (lower bound 1):
// its element type and elements (nil is a NULL element). An empty array
// (zero dimensions, as '{}' is) has no elements. Multi-dimensional
// arrays and other lower bounds are refused (0A000) where they would be
// made: array input, binary receive.
type Array struct {
	Elem  OID
	Elems []Value
	// NullBitmap: the array has PostgreSQL's null bitmap although no
	// element is NULL — a slice of an array that had one keeps it
	// (array_get_slice), as do array_cat and array_append/prepend
	// (array_set_element). Only array_send shows it: its has-nulls flag
	// is 1 (the text is the same).
	NullBitmap bool
}

// HasNullBitmap reports whether PostgreSQL's datum of a would carry a
// null bitmap: a NULL element, or one kept from the array it was made
// from (NullBitmap). An empty array has none.
func (a *Array) HasNullBitmap() bool {
	if len(a.Elems) == 0 {
		return false
	}
	if a.NullBitmap {
		return true
	}
	for _, v := range a.Elems {
		if v == nil {
			return true
		}
	}
	return false
}

// codeDatatypeMismatch is datatype_mismatch (42804).
const codeDatatypeMismatch = "42804"

// IsArray says whether oid is an array type of the catalog.
func IsArray(oid OID) bool {
	t, ok := byOID[oid]
	return ok && t.Category == CatArray
}

// ElemOf is the element type of array type oid (0: not an array).
func ElemOf(oid OID) OID {
	if t, ok := byOID[oid]; ok && t.Category == CatArray {
		return t.Elem
	}
	return 0
}

// ArrayOf is the array type whose elements are elem (0: none).
func ArrayOf(elem OID) OID {
	if t, ok := byOID[elem]; ok && t.Category != CatArray {
		return t.Array
	}
	return 0
}

// arrayErr is array_in's 22P02 with its DETAIL line.
func arrayErr(s, detail string) *Error {
	return errorf(CodeInvalidText, "malformed array literal: \"%s\"", s).detail("%s", detail)
}

func arraySpecial(c byte) bool {
	return c == '"' || c == '\\' || c == '{' || c == '}' || c == ',' || isArraySpace(c)
}

// isArraySpace is array_isspace (scanner_isspace): the blanks array
// input skips and array output quotes.
func isArraySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// parseArray is array_in for a one-dimensional array of type oid: '{'
// elements separated by ',' '}', elements optionally double-quoted,
// backslash escaping one character, unquoted NULL a NULL element, blanks
// around elements skipped. Each element goes through the element type's
// input function (ApplyMod then applies the array's typmod, which is
// its elements').
func parseArray(oid OID, s string) (*Array, error) {
	elem := ElemOf(oid)
	p := 0
	skip := func() {
		for p < len(s) && isArraySpace(s[p]) {
			p++
		}
	}
	skip()
	if p < len(s) && s[p] == '[' {
		return nil, errorf(CodeUnsupported, "sidecar does not read array literals with dimension bounds (%s)", s)
	}
	if p >= len(s) || s[p] != '{' {
		return nil, arrayErr(s, `Array value must start with "{" or dimension information.`)
	}
	p++
	out := &Array{Elem: elem, Elems: []Value{}}
	skip()
	if p < len(s) && s[p] == '{' {
		return nil, errorf(CodeUnsupported, "sidecar does not read multidimensional arrays (%s)", s)
	}
	if p < len(s) && s[p] == '}' {
		p++
		skip()
		if p != len(s) {
			return nil, arrayErr(s, "Junk after closing right brace.")
		}
		return out, nil
	}
	for {
		skip()
		if p >= len(s) {
			return nil, arrayErr(s, "Unexpected end of input.")
		}
		switch s[p] {
		case '{':
			return nil, errorf(CodeUnsupported, "sidecar does not read multidimensional arrays (%s)", s)
		case ',', '}':
			return nil, arrayErr(s, "Unexpected \""+string(s[p])+"\" character.")
		}
		var b strings.Builder
		quotedOrEscaped := false
		if s[p] == '"' {
			quotedOrEscaped = true
			p++
			for {
				if p >= len(s) {
					return nil, arrayErr(s, "Unexpected end of input.")
				}
				c := s[p]
				p++
				if c == '"' {
					break
				}
				if c == '\\' {
					if p >= len(s) {
						return nil, arrayErr(s, "Unexpected end of input.")
					}
					c = s[p]
					p++
				}
				b.WriteByte(c)
			}
			skip()
			if p >= len(s) {
				return nil, arrayErr(s, "Unexpected end of input.")
			}
			if s[p] != ',' && s[p] != '}' {
				return nil, arrayErr(s, "Unexpected array element.")
			}
		} else {
			keep := 0 // length of b up to its last escaped or non-blank byte
			for {
				if p >= len(s) {
					return nil, arrayErr(s, "Unexpected end of input.")
				}
				c := s[p]
				if c == ',' || c == '}' {
					break
				}
				if c == '"' || c == '{' {
					return nil, arrayErr(s, "Unexpected \""+string(c)+"\" character.")
				}
				p++
				if c == '\\' {
					if p >= len(s) {
						return nil, arrayErr(s, "Unexpected end of input.")
					}
					c = s[p]
					p++
					quotedOrEscaped = true
					b.WriteByte(c)
					keep = b.Len()
					continue
				}
				b.WriteByte(c)
				if !isArraySpace(c) {
					keep = b.Len()
				}
			}
			txt := b.String()[:keep]
			b.Reset()
			b.WriteString(txt)
		}
		txt := b.String()
		if !quotedOrEscaped && strings.EqualFold(txt, "NULL") {
			out.Elems = append(out.Elems, nil)
		} else {
			v, err := in(elem, txt)
			if err != nil {
				return nil, err
			}
			out.Elems = append(out.Elems, v)
		}
		c := s[p]
		p++
		if c == '}' {
			break
		}
	}
	skip()
	if p != len(s) {
		return nil, arrayErr(s, "Junk after closing right brace.")
	}
	return out, nil
}

// appendArray is array_out: '{' elements ',' '}', NULL for a NULL
// element, an element double-quoted (with \" and \\ escaped) when it is
// empty, is NULL in any case, or holds a quote, backslash, brace, comma
// or blank.
func appendArray(dst []byte, a *Array) []byte {
	dst = append(dst, '{')
	var buf []byte
	for i, v := range a.Elems {
		if i > 0 {
			dst = append(dst, ',')
		}
		if v == nil {
			dst = append(dst, "NULL"...)
			continue
		}
		buf = AppendOut(buf[:0], a.Elem, v)
		dst = appendQuotable(dst, buf, len(buf) == 0 || strings.EqualFold(string(buf), "NULL"), arraySpecial, false) // record.go
	}
	return append(dst, '}')
}

// appendArraySend is array_send: ndim, has-NULLs flag, element type,
// then per dimension its length and lower bound, then each element as
// its length (-1 for NULL) and send bytes.
func appendArraySend(dst []byte, a *Array) ([]byte, error) {
	be := binary.BigEndian
	ndim, nulls := uint32(0), uint32(0)
	if len(a.Elems) > 0 {
		ndim = 1
	}
	if a.HasNullBitmap() {
		nulls = 1
	}
	dst = be.AppendUint32(dst, ndim)
	dst = be.AppendUint32(dst, nulls)
	dst = be.AppendUint32(dst, a.Elem)
	if ndim == 1 {
		dst = be.AppendUint32(dst, uint32(len(a.Elems)))
		dst = be.AppendUint32(dst, 1)
	}
	for _, v := range a.Elems {
		var err error
		if dst, err = appendSendElem(dst, a.Elem, v); err != nil { // record.go
			return nil, err
		}
	}
	return dst, nil
}

// recvArray is array_recv for a one-dimensional array of type oid.
func recvArray(oid OID, b []byte) (Value, error) {
	be := binary.BigEndian
	bad := errorf(CodeInvalidBinary, "incorrect binary data format")
	if len(b) < 12 {
		return nil, bad
	}
	ndim, elem := be.Uint32(b), be.Uint32(b[8:])
	want := ElemOf(oid)
	if elem != want {
		return nil, errorf(codeDatatypeMismatch, "binary data has array element type %d (%s) instead of expected %d (%s)", elem, NameOf(elem), want, NameOf(want))
	}
	out := &Array{Elem: want, Elems: []Value{}}
	switch ndim {
	case 0:
		if len(b) != 12 {
			return nil, bad
		}
		return out, nil
	case 1:
	default:
		return nil, errorf(CodeUnsupported, "sidecar does not read multidimensional arrays")
	}
	if len(b) < 20 {
		return nil, bad
	}
	n, lb := be.Uint32(b[12:]), be.Uint32(b[16:])
	if lb != 1 {
		return nil, errorf(CodeUnsupported, "sidecar does not read arrays with a lower bound other than 1")
	}
	b = b[20:]
	for i := uint32(0); i < n; i++ {
		if len(b) < 4 {
			return nil, bad
		}
		l := be.Uint32(b)
		b = b[4:]
		if l == 0xFFFFFFFF {
			out.Elems = append(out.Elems, nil)
			continue
		}
		if uint64(l) > uint64(len(b)) {
			return nil, bad
		}
		v, err := recv(want, b[:l])
		if err != nil {
			return nil, err
		}
		out.Elems = append(out.Elems, v)
		b = b[l:]
	}
	if len(b) != 0 {
		return nil, bad
	}
	return out, nil
}

// compareArrays is btarraycmp for one-dimensional arrays: element by
// element (a NULL element equal to NULL and above any value), then the
// shorter (an empty array has no dimension) first.
func compareArrays(x, y *Array) int {
	for i := 0; i < len(x.Elems) && i < len(y.Elems); i++ {
		a, b := x.Elems[i], y.Elems[i]
		switch {
		case a == nil && b == nil:
			continue
		case a == nil:
			return 1
		case b == nil:
			return -1
		}
		if c := Compare(x.Elem, a, b); c != 0 {
			return c
		}
	}
	return cmpInt(int64(len(x.Elems)), int64(len(y.Elems)))
}

// hashArray hashes an array consistently with compareArrays' equality.
func hashArray(h *maphash.Hash, seed maphash.Seed, a *Array) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(a.Elems)))
	h.Write(n[:])
	for _, v := range a.Elems {
		if v == nil {
			h.WriteByte(0)
			continue
		}
		h.WriteByte(1)
		binary.BigEndian.PutUint64(n[:], Hash(seed, a.Elem, v))
		h.Write(n[:])
	}
}

// convertArray is an array coercion (int4[] → int8[], text[] →
// varchar(3)[]): the element cast applied to every element.
func convertArray(a *Array, to OID, mod int32, explicit bool) (*Array, error) {
	elem := ElemOf(to)
	out := &Array{Elem: elem, Elems: make([]Value, len(a.Elems))}
	for i, v := range a.Elems {
		if v == nil {
			continue
		}
		r, err := convert(v, a.Elem, elem)
		if err != nil {
			return nil, err
		}
		if r, err = ApplyMod(elem, mod, r, explicit); err != nil {
			return nil, err
		}
		out.Elems[i] = r
	}
	return out, nil
}
