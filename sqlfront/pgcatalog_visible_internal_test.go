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

// regclassOneByOne is regclass output as it was: the relation list
// searched per call.
func regclassOneByOne(tables []Table, path []string, oid uint32) any {
	for _, r := range catalogRels(tables) {
		if r.oid == oid {
			if tableVisible(tables, path, oid) == true {
				return r.name
			}
			return r.schema + "." + r.name
		}
	}
	return nil
}

// TestRegclassOutOncePerStatement: regclass output names every relation
// as the per-call search did and builds its relation list once: 3,000
// rows printed in well under what a list per row takes.
func TestRegclassOutOncePerStatement(t *testing.T) {
	tables := visibleTables(3000)
	path := []string{"app", "public"}
	name := regclassNamer(tables, path)
	for _, o := range []uint32{16384, 16385, 16386, 17000, 19383} {
		got, err := name(o)
		if want := regclassOneByOne(tables, path, o); err != nil || any(got) != want {
			t.Errorf("oid %d: %v (%v), per call %v", o, got, err, want)
		}
	}
	if _, err := name(1); err == nil {
		t.Error("oid 1: answered, want refused")
	}
	start := time.Now()
	name = regclassNamer(tables, path)
	for _, tb := range tables {
		if _, err := name(tb.OID); err != nil {
			t.Fatal(err)
		}
	}
	once := time.Since(start)
	start = time.Now()
	for _, tb := range tables[:30] { // a hundredth: a list per row
		catalogRels(tables)
		_ = tb
	}
	perRow := time.Since(start) * 100
	t.Logf("3000 relations: once %v, a list per row ~%v", once, perRow)
	if once*20 > perRow {
		t.Errorf("printing once (%v) is not much faster than a list per row (~%v)", once, perRow)
	}
}
