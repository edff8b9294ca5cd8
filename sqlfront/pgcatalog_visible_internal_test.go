package sqlfront

import (
	"fmt"
	"testing"
	"time"
)

// visibleTables are n tables spread over three schemas, every name in
// two of them (so the search path decides which one is visible).
func visibleTables(n int) []Table {
	var ts []Table
	for i := 0; i < n; i++ {
		schema := []string{"public", "app", "other"}[i%3]
		rel := fmt.Sprintf("t%d", i/2)
		ts = append(ts, Table{Name: schema + "." + rel, Schema: schema, Rel: rel, OID: uint32(16384 + i)})
	}
	return ts
}

// visibleOneByOne is pg_table_is_visible as it was answered per row
// before the set: the relation list built for each call.
func visibleOneByOne(tables []Table, path []string, oid uint32) any {
	rels := catalogRels(tables)
	var r *catRel
	for i := range rels {
		if rels[i].oid == oid {
			r = &rels[i]
		}
	}
	if r == nil {
		return nil
	}
	for _, p := range path {
		for _, o := range rels {
			if o.schema == p && o.name == r.name {
				return o.oid == oid
			}
		}
	}
	return false
}

// TestVisibleSetOncePerStatement: the set answers as the per-call
// search did for every OID (and NULL for an unknown one) under several
// search paths, and a pg_class-sized scan no longer costs a relation
// list per row: 3,000 relations answered in well under what the
// per-row search takes.
func TestVisibleSetOncePerStatement(t *testing.T) {
	tables := visibleTables(3000)
	for _, path := range [][]string{{"pg_catalog", "public"}, {"app", "public"}, {"other", "app", "public"}, {"nowhere"}} {
		s := newVisibleSet(tables, path)
		for _, o := range []uint32{1, 16383, 16384, 16385, 16386, 17000, 19383, 19384} {
			if got, want := any(s.of(o)), visibleOneByOne(tables, path, o); got != want {
				t.Errorf("path %v oid %d: %v, per call %v", path, o, got, want)
			}
		}
	}
	path := []string{"app", "public"}
	start := time.Now()
	s := newVisibleSet(tables, path)
	n := 0
	for _, tb := range tables {
		if s.of(tb.OID) == true {
			n++
		}
	}
	set := time.Since(start)
	start = time.Now()
	m := 0
	for _, tb := range tables[:300] { // a tenth: the per-call search is quadratic
		if visibleOneByOne(tables, path, tb.OID) == true {
			m++
		}
	}
	perCall := time.Since(start) * 10
	t.Logf("3000 relations: set %v (%d visible), per-call search ~%v", set, n, perCall)
	if set*20 > perCall {
		t.Errorf("the set (%v) is not much faster than a search per call (~%v)", set, perCall)
	}
}
