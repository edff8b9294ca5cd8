package pgast

import (
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// TestWalkReachesNestedNodes: tables in joins, subqueries in FROM and in
// expressions, and CTEs are all visited; returning false prunes.
func TestWalkReachesNestedNodes(t *testing.T) {
	tree, err := pg.Parse(`WITH c AS (SELECT * FROM t1) SELECT * FROM t2 JOIN (SELECT * FROM t3) s ON true WHERE EXISTS (SELECT 1 FROM t4 WHERE x IN (SELECT y FROM t5))`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	Walk(tree.ProtoReflect(), func(m protoreflect.Message) bool {
		if rv, ok := m.Interface().(*pg.RangeVar); ok {
			names = append(names, rv.Relname)
		}
		return true
	})
	want := map[string]bool{"t1": true, "t2": true, "t3": true, "t4": true, "t5": true}
	if len(names) != len(want) {
		t.Fatalf("visited tables %v, want %d of them", names, len(want))
	}
	for _, n := range names {
		if !want[n] {
			t.Fatalf("visited %q, not in the statement", n)
		}
	}
	// Pruning at every SubLink hides t4 and t5.
	names = names[:0]
	Walk(tree.ProtoReflect(), func(m protoreflect.Message) bool {
		if _, ok := m.Interface().(*pg.SubLink); ok {
			return false
		}
		if rv, ok := m.Interface().(*pg.RangeVar); ok {
			names = append(names, rv.Relname)
		}
		return true
	})
	if len(names) != 3 {
		t.Fatalf("with sublinks pruned, visited %v, want t1, t2, t3", names)
	}
}
