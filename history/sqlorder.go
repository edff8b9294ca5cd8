// The order of a patch's statements: the foreign keys between its tables,
// tables referenced first, and the rows of a table that references itself.

package history

import (
	"container/heap"
	"encoding/binary"
	"slices"
	"strings"
)

// ForeignKey says that rows of Table reference rows of References through
// Columns (of Table) and RefColumns (of References, the same number, in
// the same order). Table names are canonical, as the mirror names them.
type ForeignKey struct {
	Table      string   `json:"table"`
	Columns    []string `json:"columns"`
	References string   `json:"references"`
	RefColumns []string `json:"ref_columns"`
}

// tuple is the text of a row's values in cols, prefixed by the foreign
// key's index, or "" when one is NULL (a NULL references nothing).
func tuple(fk int, cols []string, r *Row) string {
	if r == nil {
		return ""
	}
	var b []byte
	b = binary.AppendUvarint(b, uint64(fk))
	for _, c := range cols {
		v, ok := r.Get(c)
		if !ok || v == nil {
			return ""
		}
		b = binary.AppendUvarint(b, uint64(len(*v)))
		b = append(b, *v...)
	}
	return string(b)
}

// reparents reports whether e updates a column by which its table
// references itself.
func (w *SQLWriter) reparents(e *Event) bool {
	return slices.ContainsFunc(w.opts.ForeignKeys, func(fk ForeignKey) bool {
		return fk.Table == e.Table && fk.References == e.Table &&
			slices.ContainsFunc(fk.Columns, func(c string) bool { return slices.Contains(e.Changed, c) })
	})
}

// selfRef reports whether table references itself.
func (w *SQLWriter) selfRef(table string) bool {
	return slices.ContainsFunc(w.opts.ForeignKeys, func(fk ForeignKey) bool { return fk.Table == table && fk.References == table })
}

// selfOrder orders the records of a table that references itself so each
// row comes after the rows it references (childrenFirst: before them),
// keeping the held (key) order otherwise. Rows in a reference cycle come
// last, in key order: only a DEFERRABLE constraint lets them apply.
func selfOrder(recs []*record, childrenFirst bool) []int {
	owner := map[string]int{}
	for i, r := range recs {
		for _, k := range r.keys[secSelfOwn] {
			owner[k] = i
		}
	}
	// after[i] lists the records that must come after record i.
	after := make([][]int, len(recs))
	waits := make([]int, len(recs))
	for i, r := range recs {
		for _, k := range r.keys[secSelfRefs] {
			p, ok := owner[k]
			if !ok || p == i {
				continue
			}
			if childrenFirst {
				after[i] = append(after[i], p)
				waits[p]++
			} else {
				after[p] = append(after[p], i)
				waits[i]++
			}
		}
	}
	ready := &intHeap{}
	for i, n := range waits {
		if n == 0 {
			heap.Push(ready, i)
		}
	}
	out := make([]int, 0, len(recs))
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		out = append(out, i)
		for _, j := range after[i] {
			if waits[j]--; waits[j] == 0 {
				heap.Push(ready, j)
			}
		}
	}
	for i, n := range waits {
		if n > 0 {
			out = append(out, i)
		}
	}
	return out
}

// intHeap is a min-heap of record indexes: among the rows free to go, the
// first in key order goes first.
type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// dependencyOrder orders tables so that a table comes after every table
// it references (ties and cycles keep the order given), and returns a
// comment naming the tables whose references form a cycle, where no order
// can satisfy non-deferrable constraints.
func dependencyOrder(tables []string, fks []ForeignKey) ([]string, string) {
	in := map[string]bool{}
	for _, t := range tables {
		in[t] = true
	}
	refs := map[string][]string{} // table -> tables it references
	for _, fk := range fks {
		if in[fk.Table] && in[fk.References] && fk.Table != fk.References {
			refs[fk.Table] = append(refs[fk.Table], fk.References)
		}
	}
	const (
		unseen = iota
		visiting
		done
	)
	state := map[string]int{}
	var out, cyclic []string
	var visit func(t string)
	visit = func(t string) {
		switch state[t] {
		case visiting:
			cyclic = append(cyclic, t)
			return
		case done:
			return
		}
		state[t] = visiting
		for _, r := range refs[t] {
			visit(r)
		}
		state[t] = done
		out = append(out, t)
	}
	for _, t := range tables {
		visit(t)
	}
	if len(cyclic) == 0 {
		return out, ""
	}
	slices.Sort(cyclic)
	names := make([]string, 0, len(cyclic))
	for _, t := range slices.Compact(cyclic) {
		names = append(names, commentSafe(t))
	}
	return out, "-- foreign keys form a cycle through " + strings.Join(names, ", ") +
		": statements across them apply only if those constraints are DEFERRABLE\n"
}
