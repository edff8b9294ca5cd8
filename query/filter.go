package query

import (
	"bytes"
	"slices"

	"github.com/sidecar-dev/sidecar/heap"
)

// A page's selection is a bitmap over its slots. A filter node yields two
// bitmaps: the live rows where it is TRUE (t) and where it is UNKNOWN (u);
// the rest of the live rows are FALSE.

// arena hands out bitmaps for one page's evaluation; reset per page.
type arena struct {
	words int
	buf   [][]uint64
	next  int
}

func (a *arena) reset(words int) {
	if words != a.words {
		a.words, a.buf = words, nil
	}
	a.next = 0
}

func (a *arena) get() []uint64 {
	if a.next == len(a.buf) {
		a.buf = append(a.buf, make([]uint64, a.words))
	}
	b := a.buf[a.next]
	a.next++
	clear(b)
	return b
}

// floatCmp orders floats as PostgreSQL does: NaN equals NaN and is above
// everything, -0 equals 0.
func floatCmp(a, b float64) int {
	an, bn := a != a, b != b
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// cmpOK reports whether comparison result c satisfies op.
func cmpOK(op string, c int) bool {
	switch op {
	case "=":
		return c == 0
	case "<>":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}

// eval computes n's TRUE and UNKNOWN bitmaps over page v (live: the live
// bitmap, limited to Slots()).
func eval(n *node, v heap.PageView, live []uint64, a *arena) (t, u []uint64) {
	switch n.op {
	case "and", "or":
		t, u = eval(n.args[0], v, live, a)
		for _, arg := range n.args[1:] {
			t2, u2 := eval(arg, v, live, a)
			for i := range t {
				if n.op == "and" {
					// UNKNOWN unless one side is FALSE.
					f1 := live[i] &^ (t[i] | u[i])
					f2 := live[i] &^ (t2[i] | u2[i])
					u[i] = (u[i] | u2[i]) &^ (f1 | f2)
					t[i] &= t2[i]
				} else {
					t[i] |= t2[i]
					u[i] = (u[i] | u2[i]) &^ t[i]
				}
			}
		}
		return t, u
	case "not":
		t0, u0 := eval(n.args[0], v, live, a)
		t = a.get()
		for i := range t {
			t[i] = live[i] &^ (t0[i] | u0[i])
		}
		return t, u0
	}
	t, u = a.get(), a.get()
	nulls := v.Nulls(n.col)
	for i := range u {
		u[i] = live[i] & nulls[i]
	}
	switch n.op {
	case "is_null":
		copy(t, u)
		clear(u)
		return t, u
	case "is_not_null":
		for i := range t {
			t[i] = live[i] &^ nulls[i]
		}
		clear(u)
		return t, u
	}
	slots := v.Slots()
	switch n.vk {
	case vInt:
		evalInts(n, v.Int64s(n.col), slots, t)
	case vFloat:
		evalFloats(n, v.Float64s(n.col), slots, t)
	case vNumeric:
		exc := v.Exceptions(n.col)
		for s := 0; s < slots; s++ {
			if live[s>>6]&(1<<(s&63)) == 0 {
				continue
			}
			t[s>>6] |= b2u(numMatch(n, numAt(v, n.col, s, exc))) << (s & 63)
		}
	case vText:
		off, ln, data := v.Varlen(n.col)
		if n.typed != nil { // typedtext.go
			for s := 0; s < slots; s++ {
				if live[s>>6]&(1<<(s&63)) != 0 && nulls[s>>6]&(1<<(s&63)) == 0 {
					t[s>>6] |= b2u(typedMatch(n, data[off[s]:off[s]+ln[s]])) << (s & 63)
				}
			}
			break
		}
		for s := 0; s < slots; s++ {
			b := data[off[s] : off[s]+ln[s]]
			t[s>>6] |= b2u(textMatch(n, b)) << (s & 63)
		}
	}
	for i := range t {
		t[i] &= live[i] &^ nulls[i]
	}
	return t, u
}

// evalInts sets the TRUE bits of an integer comparison. Each 64-slot word
// is built in a register from branch-free comparisons (one loop per
// operator, so the comparison is inlined).
func evalInts(n *node, vals []int64, slots int, t []uint64) {
	vals = vals[:slots]
	full := len(vals) &^ 63
	switch n.op {
	case "in":
		if set := n.in; set != nil {
			for s, x := range vals {
				t[s>>6] |= b2u(set.hasInt(x)) << (s & 63)
			}
			return
		}
		for s, x := range vals {
			m := false
			for _, w := range n.vals {
				m = m || x == w.I
			}
			t[s>>6] |= b2u(m) << (s & 63)
		}
		return
	case "between":
		lo, hi := n.vals[0].I, n.vals[1].I
		if lo > hi {
			return
		}
		// x in [lo, hi] as one unsigned comparison: x-lo <= hi-lo.
		width := uint64(hi) - uint64(lo)
		for base := 0; base < full; base += 64 {
			seg := vals[base : base+64 : base+64]
			var w uint64
			for j, x := range seg {
				w |= b2u(uint64(x)-uint64(lo) <= width) << uint(j)
			}
			t[base>>6] = w
		}
		for s := full; s < len(vals); s++ {
			x := vals[s]
			t[s>>6] |= b2u(uint64(x)-uint64(lo) <= width) << uint(s&63)
		}
		return
	}
	c := n.vals[0].I
	switch n.op {
	case "=":
		for base := 0; base < full; base += 64 {
			seg := vals[base : base+64 : base+64]
			var w uint64
			for j, x := range seg {
				w |= b2u(x == c) << uint(j)
			}
			t[base>>6] = w
		}
		for s := full; s < len(vals); s++ {
			x := vals[s]
			t[s>>6] |= b2u(x == c) << uint(s&63)
		}
	case "<>":
		for base := 0; base < full; base += 64 {
			seg := vals[base : base+64 : base+64]
			var w uint64
			for j, x := range seg {
				w |= b2u(x != c) << uint(j)
			}
			t[base>>6] = w
		}
		for s := full; s < len(vals); s++ {
			x := vals[s]
			t[s>>6] |= b2u(x != c) << uint(s&63)
		}
	case "<":
		for base := 0; base < full; base += 64 {
			seg := vals[base : base+64 : base+64]
			var w uint64
			for j, x := range seg {
				w |= b2u(x < c) << uint(j)
			}
			t[base>>6] = w
		}
		for s := full; s < len(vals); s++ {
			x := vals[s]
			t[s>>6] |= b2u(x < c) << uint(s&63)
		}
	case "<=":
		for base := 0; base < full; base += 64 {
			seg := vals[base : base+64 : base+64]
			var w uint64
			for j, x := range seg {
				w |= b2u(x <= c) << uint(j)
			}
			t[base>>6] = w
		}
		for s := full; s < len(vals); s++ {
			x := vals[s]
			t[s>>6] |= b2u(x <= c) << uint(s&63)
		}
	case ">":
		for base := 0; base < full; base += 64 {
			seg := vals[base : base+64 : base+64]
			var w uint64
			for j, x := range seg {
				w |= b2u(x > c) << uint(j)
			}
			t[base>>6] = w
		}
		for s := full; s < len(vals); s++ {
			x := vals[s]
			t[s>>6] |= b2u(x > c) << uint(s&63)
		}
	case ">=":
		for base := 0; base < full; base += 64 {
			seg := vals[base : base+64 : base+64]
			var w uint64
			for j, x := range seg {
				w |= b2u(x >= c) << uint(j)
			}
			t[base>>6] = w
		}
		for s := full; s < len(vals); s++ {
			x := vals[s]
			t[s>>6] |= b2u(x >= c) << uint(s&63)
		}
	}
}

func evalFloats(n *node, vals []float64, slots int, t []uint64) {
	vals = vals[:slots]
	switch n.op {
	case "in":
		if set := n.in; set != nil {
			for s, x := range vals {
				t[s>>6] |= b2u(set.hasFloat(x)) << (s & 63)
			}
			return
		}
		for s, x := range vals {
			m := false
			for _, w := range n.vals {
				m = m || floatCmp(x, w.F) == 0
			}
			t[s>>6] |= b2u(m) << (s & 63)
		}
	case "between":
		lo, hi := n.vals[0].F, n.vals[1].F
		for s, x := range vals {
			t[s>>6] |= b2u(floatCmp(x, lo) >= 0 && floatCmp(x, hi) <= 0) << (s & 63)
		}
	default:
		c := n.vals[0].F
		for s, x := range vals {
			t[s>>6] |= b2u(cmpOK(n.op, floatCmp(x, c))) << (s & 63)
		}
	}
}

func numMatch(n *node, x numv) bool {
	switch n.op {
	case "in":
		if n.in != nil {
			return n.in.hasNum(x)
		}
		for _, w := range n.nums {
			if numCmp(x, w) == 0 {
				return true
			}
		}
		return false
	case "between":
		return numCmp(x, n.nums[0]) >= 0 && numCmp(x, n.nums[1]) <= 0
	}
	return cmpOK(n.op, numCmp(x, n.nums[0]))
}

func textMatch(n *node, b []byte) bool {
	switch n.op {
	case "like":
		return bytes.HasPrefix(b, []byte(n.vals[0].S))
	case "in":
		if n.in != nil {
			return n.in.hasText(b)
		}
		for _, w := range n.vals {
			if string(b) == w.S {
				return true
			}
		}
		return false
	case "between":
		return bytes.Compare(b, []byte(n.vals[0].S)) >= 0 && bytes.Compare(b, []byte(n.vals[1].S)) <= 0
	}
	return cmpOK(n.op, bytes.Compare(b, []byte(n.vals[0].S)))
}

// mayMatch reports whether a page with these zone maps can hold a row for
// which n is TRUE (conservative: true when unsure).
func mayMatch(n *node, stats func(c int) heap.ColStats) bool {
	switch n.op {
	case "and":
		for _, a := range n.args {
			if !mayMatch(a, stats) {
				return false
			}
		}
		return true
	case "or":
		for _, a := range n.args {
			if mayMatch(a, stats) {
				return true
			}
		}
		return false
	case "not":
		return true
	}
	st := stats(n.col)
	switch n.op {
	case "is_null":
		return st.Nulls > 0
	case "is_not_null":
		return st.Count > 0
	}
	if st.Count == 0 {
		return false
	}
	if !st.HasMinMax(n.kind) || n.vk == vText || n.vk == vNumeric {
		return true
	}
	// cmp(v) compares a literal with the page's min and max.
	var lo, hi int // sign of min - v, max - v
	inRange := func(v Value) (int, int) {
		if n.vk == vFloat {
			return floatCmp(st.MinF, v.F), floatCmp(st.MaxF, v.F)
		}
		return cmp64(st.MinI, v.I), cmp64(st.MaxI, v.I)
	}
	switch n.op {
	case "=", "in":
		if n.in != nil {
			return n.in.mayMatch(n.vk, st)
		}
		for _, v := range n.vals {
			if lo, hi = inRange(v); lo <= 0 && hi >= 0 {
				return true
			}
		}
		return false
	case "<>":
		lo, _ = inRange(n.vals[0])
		_, hi = inRange(n.vals[0])
		return !(lo == 0 && hi == 0)
	case "<":
		lo, _ = inRange(n.vals[0])
		return lo < 0
	case "<=":
		lo, _ = inRange(n.vals[0])
		return lo <= 0
	case ">":
		_, hi = inRange(n.vals[0])
		return hi > 0
	case ">=":
		_, hi = inRange(n.vals[0])
		return hi >= 0
	case "between":
		_, hi = inRange(n.vals[0])
		lo, _ = inRange(n.vals[1])
		return hi >= 0 && lo <= 0
	}
	return true
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// inSet is the lookup structure of a long IN list (more than inLinear
// values): a hash set for integers, floats and text, the values sorted
// for numerics and for the zone-map test, so that a row costs one lookup
// and a page one binary search, whatever the list's length.
type inSet struct {
	ints   map[int64]struct{}
	floats map[uint64]struct{} // floatKey of each value (exec.go)
	texts  map[string]struct{}
	sortI  []int64
	sortF  []float64
	nums   []numv // sorted by numCmp
}

// inLinear is the longest IN list matched by scanning its values.
const inLinear = 8

// newInSet builds the set of an "in" node's values (nil for a short list
// or another operator).
func newInSet(n *node) *inSet {
	if n.op != "in" || len(n.vals) <= inLinear {
		return nil
	}
	s := &inSet{}
	switch n.vk {
	case vInt:
		s.ints = make(map[int64]struct{}, len(n.vals))
		for _, v := range n.vals {
			s.ints[v.I] = struct{}{}
			s.sortI = append(s.sortI, v.I)
		}
		slices.Sort(s.sortI)
	case vFloat:
		s.floats = make(map[uint64]struct{}, len(n.vals))
		for _, v := range n.vals {
			s.floats[floatKey(v.F)] = struct{}{}
			s.sortF = append(s.sortF, v.F)
		}
		slices.SortFunc(s.sortF, floatCmp)
	case vText:
		s.texts = make(map[string]struct{}, len(n.vals))
		for _, v := range n.vals {
			s.texts[v.S] = struct{}{}
		}
	case vNumeric:
		s.nums = slices.Clone(n.nums)
		slices.SortFunc(s.nums, numCmp)
	}
	return s
}

func (s *inSet) hasInt(x int64) bool {
	_, ok := s.ints[x]
	return ok
}

func (s *inSet) hasFloat(x float64) bool {
	_, ok := s.floats[floatKey(x)]
	return ok
}

func (s *inSet) hasText(b []byte) bool {
	_, ok := s.texts[string(b)]
	return ok
}

func (s *inSet) hasNum(x numv) bool {
	_, ok := slices.BinarySearchFunc(s.nums, x, numCmp)
	return ok
}

// mayMatch reports whether a value of the set lies in a page's [lo, hi].
func (s *inSet) mayMatch(vk vkind, st heap.ColStats) bool {
	if vk == vFloat {
		i, _ := slices.BinarySearchFunc(s.sortF, st.MinF, floatCmp)
		return i < len(s.sortF) && floatCmp(s.sortF[i], st.MaxF) <= 0
	}
	i, _ := slices.BinarySearch(s.sortI, st.MinI)
	return i < len(s.sortI) && s.sortI[i] <= st.MaxI
}
