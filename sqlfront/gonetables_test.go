package sqlfront

import (
	"slices"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// A table the dropped poll marked gone leaves the relation list the
// other tables' facts carry at once, with its index, while that list is
// older than the drop (read by the catalog poll up to one poll later):
// before, pg_class listed it and a FROM was refused as "not followed"
// (0A000) where PostgreSQL answers 42P01 — CI run 5 of session 22, on
// PostgreSQL 17. A list read after the drop is kept as read: a table
// renamed away keeps its OID under its new name, an unfollowed relation.
func TestGoneTablesLeaveTheRelationList(t *testing.T) {
	ns := []wal.NamespaceOwner{{OID: 2200, Name: "public"}}
	rel := func(oid uint32, name string, kind byte) wal.RelationDetail {
		return wal.RelationDetail{OID: oid, Namespace: 2200, Name: name, Kind: kind}
	}
	table := func(oid uint32, name string, list []wal.RelationDetail, indexes ...wal.IndexFacts) Table {
		return Table{Name: "public." + name, Schema: "public", Rel: name, OID: oid, Facts: &wal.Facts{Schema: &wal.SchemaFacts{
			Indexes:   indexes,
			Relations: &wal.RelationListFacts{Namespaces: ns, Relations: list},
		}}}
	}
	names := func(tables []Table) []string {
		var out []string
		for _, r := range listedOnlyRelations(tables) {
			out = append(out, r.Name)
		}
		return out
	}
	stale := []wal.RelationDetail{rel(100, "kept", 'r'), rel(101, "kept_pkey", 'i'), rel(200, "gone1", 'r'), rel(201, "gone1_pkey", 'i'), rel(300, "loose", 'r')}
	gone := []Table{table(200, "gone1", stale, wal.IndexFacts{OID: 201, Name: "gone1_pkey"})}
	tables := []Table{table(100, "kept", stale, wal.IndexFacts{OID: 101, Name: "kept_pkey"})}
	if got := names(tables); !slices.Equal(got, []string{"gone1", "gone1_pkey", "loose"}) {
		t.Fatalf("before: listed alone %v", got)
	}
	withoutGoneRelations(tables, gone)
	if got := names(tables); !slices.Equal(got, []string{"loose"}) {
		t.Errorf("a list older than the drop: pg_class lists %v alone, want [loose] (the dropped table and its index left out)", got)
	}
	if stale[2].Name != "gone1" || len(gone[0].Facts.Schema.Relations.Relations) != 5 {
		t.Errorf("the facts as read were changed: %v", stale)
	}

	// Renamed away: the list read after the rename names OID 200 gone1b.
	fresh := []wal.RelationDetail{rel(100, "kept", 'r'), rel(101, "kept_pkey", 'i'), rel(200, "gone1b", 'r'), rel(201, "gone1_pkey", 'i')}
	tables = []Table{table(100, "kept", fresh, wal.IndexFacts{OID: 101, Name: "kept_pkey"})}
	withoutGoneRelations(tables, gone)
	if got := names(tables); !slices.Equal(got, []string{"gone1b", "gone1_pkey"}) {
		t.Errorf("a list read after a rename: pg_class lists %v alone, want [gone1b gone1_pkey]", got)
	}
}
