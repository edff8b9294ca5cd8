package plan

import "slices"

// ColSet is a set of ColumnIDs.
type ColSet struct{ m map[ColumnID]struct{} }

// Add adds id.
func (s *ColSet) Add(id ColumnID) {
	if s.m == nil {
		s.m = map[ColumnID]struct{}{}
	}
	s.m[id] = struct{}{}
}

// AddSet adds every column of o.
func (s *ColSet) AddSet(o ColSet) {
	for id := range o.m {
		s.Add(id)
	}
}

// Has says whether id is in the set.
func (s ColSet) Has(id ColumnID) bool { _, ok := s.m[id]; return ok }

// Len is the set's size.
func (s ColSet) Len() int { return len(s.m) }

// SubsetOf says whether every column of s is in o.
func (s ColSet) SubsetOf(o ColSet) bool {
	for id := range s.m {
		if !o.Has(id) {
			return false
		}
	}
	return true
}

// Intersects says whether s and o share a column.
func (s ColSet) Intersects(o ColSet) bool {
	for id := range s.m {
		if o.Has(id) {
			return true
		}
	}
	return false
}

// Sorted lists the set in ID order.
func (s ColSet) Sorted() []ColumnID {
	out := make([]ColumnID, 0, len(s.m))
	for id := range s.m {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// SetOf is the set of ids.
func SetOf(ids []ColumnID) ColSet {
	var s ColSet
	for _, id := range ids {
		s.Add(id)
	}
	return s
}
