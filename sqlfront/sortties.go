package sqlfront

// The flat path's ORDER BY, like sql/exec's (sql/exec/sortties.go):
// rows tied on every key whose keys compare equal but print differently
// (float 0 and -0, numeric 3 and 3.00, interval '1 day' and '24 hours',
// bpchar 'a' and 'a ', jsonb 1 and 1.0) come in the order PostgreSQL's
// plan leaves them in, which the sidecar cannot know: the statement is
// refused (0A000) rather than answered in another order.

// sortTiesUndetermined checks the sorted rows (adjacent ones only: the
// sort put tied rows together).
func (p *plan) sortTiesUndetermined(sorted []sortRow) error {
	var loose []int
	for i, k := range p.order {
		switch k.e.typ() {
		case oidNumeric, oidFloat4, oidFloat8, oidInterval, oidBpchar, oidJSONB:
			loose = append(loose, i)
		}
	}
	if len(loose) == 0 {
		return nil
	}
	for r := 1; r < len(sorted); r++ {
		a, b := sorted[r-1], sorted[r]
		if p.cmpSort(a, b) != 0 {
			continue
		}
		for _, i := range loose {
			t := p.order[i].e.typ()
			x, _ := render(a.keys[i], t)
			y, _ := render(b.keys[i], t)
			if x != y {
				return unsupported(0, "ORDER BY over values that compare equal but print differently (0 and -0, 1.0 and 1.00, '1 day' and '24 hours'), whose order PostgreSQL's plan decides,")
			}
		}
	}
	return nil
}
