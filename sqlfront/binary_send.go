package sqlfront

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// catalogBinary is the binary form of a value of type t given as its
// output text, for the types binary() has no case of: a type of the
// catalog is read back by its input function and sent by its send
// function (types.Send: inet_send's is_cidr byte, timetz_send, …,
// checked against PostgreSQL in binaryformat_test.go), an array of
// them — of any dimensions and lower bounds — by array_send's layout
// over its elements' send forms. pgtype's decode and re-encode gave
// other bytes (cidr as inet, multi-dimensional arrays flattened, a
// lower bound of 0 as 1). ok is false for a type the catalog does not
// know (the caller refuses it unless pgtype's bytes are known exact).
func catalogBinary(t uint32, txt string) (b []byte, ok bool, err error) {
	if types.IsArray(t) {
		if !types.Known(types.ElemOf(t)) {
			return nil, false, nil
		}
		if b, ok := arrayBinary(t, txt); ok {
			return b, true, nil // one dimension, lower bound 1: vexec_arraybin.go
		}
		b, err := arrayTextSend(types.ElemOf(t), txt)
		if err != nil {
			return nil, true, errf(codeInternal, -1, "binary encoding of %s %q: %v", typeName(t), txt, err)
		}
		return b, true, nil
	}
	if !types.Known(t) || t == types.RecordOID {
		return nil, false, nil
	}
	b, err = inSend(t, txt)
	return b, true, err
}

// inSend is the send form of the value of type t whose output text is
// txt: the type catalog's input, then its send function.
func inSend(t uint32, txt string) ([]byte, error) {
	v, err := types.In(t, -1, txt)
	if err != nil && t == oidInterval {
		// An interval's output text need not read back (the extreme
		// value prints hours past interval_in's range): refused, never
		// an internal error for a value PostgreSQL sends.
		return nil, unsupported(-1, "the binary form of the interval "+strconv.Quote(txt)+" (its output text does not read back)")
	}
	if err != nil {
		return nil, errf(codeInternal, -1, "binary encoding of %s %q: %v", typeName(t), txt, err)
	}
	b, err := types.Send(t, v)
	if err != nil {
		return nil, typesErr(err)
	}
	return b, nil
}

// pgtypeExact are the types outside the catalog whose pgtype binary
// encoding from the output text is PostgreSQL's send form byte for byte
// (bit_send, varbit_send; binaryformat_test.go checks them).
var pgtypeExact = map[uint32]bool{1560: true, 1562: true}

// arrayTextSend is array_send of an array given as array_out's text
// ("[0:1]={…}", "{{1,2},{3,4}}"): ndim, the null flag, the element
// type, each dimension's length and lower bound, then each element's
// length and send form (-1 for NULL).
func arrayTextSend(elem uint32, txt string) ([]byte, error) {
	s := txt
	var lbounds []int
	if strings.HasPrefix(s, "[") {
		eq := strings.Index(s, "=")
		if eq < 0 {
			return nil, errBadArray
		}
		for _, d := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(s[:eq], "["), "]"), "][") {
			lo, _, ok := strings.Cut(d, ":")
			n, err := strconv.Atoi(lo)
			if !ok || err != nil {
				return nil, errBadArray
			}
			lbounds = append(lbounds, n)
		}
		s = s[eq+1:]
	}
	var dims []int  // each level's length, from its first group
	var count []int // items so far in the open group of each level
	var done []bool // whether the level's length is known
	var elems []*string
	depth := 0
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '{':
			if depth == len(dims) {
				dims, count, done = append(dims, 0), append(count, 0), append(done, false)
			}
			count[depth] = 0
			depth++
			i++
		case '}':
			depth--
			if depth < 0 {
				return nil, errBadArray
			}
			if !done[depth] {
				dims[depth], done[depth] = count[depth], true
			} else if dims[depth] != count[depth] {
				return nil, errBadArray
			}
			if depth > 0 {
				count[depth-1]++
			}
			i++
		case ',':
			i++
		default:
			if depth != len(dims) {
				return nil, errBadArray
			}
			var e string
			null := false
			if c == '"' {
				var b strings.Builder
				i++
				for i < len(s) && s[i] != '"' {
					if s[i] == '\\' && i+1 < len(s) {
						i++
					}
					b.WriteByte(s[i])
					i++
				}
				i++
				e = b.String()
			} else {
				j := i
				for j < len(s) && s[j] != ',' && s[j] != '}' {
					j++
				}
				e, i = s[i:j], j
				null = strings.EqualFold(e, "NULL")
			}
			count[depth-1]++
			if null {
				elems = append(elems, nil)
			} else {
				elems = append(elems, &e)
			}
		}
	}
	if depth != 0 || lbounds != nil && len(lbounds) != len(dims) {
		return nil, errBadArray
	}
	if len(elems) == 0 {
		dims = nil
	}
	be := binary.BigEndian
	hasNull := uint32(0)
	for _, e := range elems {
		if e == nil {
			hasNull = 1
		}
	}
	out := be.AppendUint32(nil, uint32(len(dims)))
	out = be.AppendUint32(out, hasNull)
	out = be.AppendUint32(out, elem)
	for d, n := range dims {
		lo := 1
		if lbounds != nil {
			lo = lbounds[d]
		}
		out = be.AppendUint32(out, uint32(n))
		out = be.AppendUint32(out, uint32(int32(lo)))
	}
	for _, e := range elems {
		if e == nil {
			out = be.AppendUint32(out, 0xffffffff)
			continue
		}
		v, err := types.In(elem, -1, *e)
		if err != nil {
			return nil, err
		}
		at := len(out)
		out = append(out, 0, 0, 0, 0)
		if out, err = types.AppendSend(out, elem, v); err != nil {
			return nil, err
		}
		be.PutUint32(out[at:], uint32(len(out)-at-4))
	}
	return out, nil
}

// errBadArray is an array text arrayTextSend cannot read (it reads
// array_out's output only).
var errBadArray = errf(codeInternal, -1, "malformed array text")

// isNetworkParam says whether t is inet, cidr, macaddr or macaddr8: a
// parameter of these is kept as its canonical output text (paramAs),
// which sql/exec reads again; equal values have equal texts.
func isNetworkParam(t uint32) bool {
	return t == types.Inet || t == types.Cidr || t == types.Macaddr || t == types.Macaddr8
}

// catalogRecv is a parameter sent in binary format read by the type
// catalog's receive function (inet_recv: ::ffff:1.2.3.4 stays IPv6, a
// cidr's bits right of the mask are refused), as its output text; ok is
// false for the types it leaves to the caller.
func catalogRecv(t uint32, b []byte) (txt string, ok bool, err error) {
	if !isNetworkParam(t) && !types.IsRange(t) { // range_recv: rangetype.go
		return "", false, nil
	}
	v, err := types.Recv(t, -1, b)
	if err != nil {
		return "", true, typesErr(err)
	}
	return types.Out(t, v), true, nil
}
