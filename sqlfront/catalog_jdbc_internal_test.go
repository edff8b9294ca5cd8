package sqlfront

import (
	"strings"
	"testing"
)

// TestCatalogColumnsMatchLayouts: the system catalogs' columns pgjdbc's
// origin lookup answers with (catalog_jdbc_columns.go, each major's
// initdb) are, attnum for attnum, the columns sidecar serves in that
// major's layout: a result column's origin attnum (vexec_origin.go,
// the canned answers) names the column PostgreSQL's attnum does.
func TestCatalogColumnsMatchLayouts(t *testing.T) {
	for major, rels := range catalogColumnsByMajor {
		for rel, cols := range rels {
			r := catalogDef("pg_catalog", rel)
			if r == nil {
				continue // not an engine relation (pg_cast): no origin names it
			}
			var served []string
			for _, c := range r.forVersion(major * 10000).cols {
				if !c.system {
					served = append(served, c.name)
				}
			}
			want := strings.Fields(strings.ReplaceAll(cols, "!", ""))
			if strings.Join(served, " ") != strings.Join(want, " ") {
				t.Errorf("%d %s:\n  served     %s\n  PostgreSQL %s", major, rel, strings.Join(served, " "), strings.Join(want, " "))
			}
		}
	}
}

// TestJDBCFieldMetaRecognised: pgjdbc 42.5's origin lookup of two
// catalog columns and an expression is answered from the catalog
// columns; one naming a user table's OID is left to the engine.
func TestJDBCFieldMetaRecognised(t *testing.T) {
	q := jdbcFieldMetaHead + "SELECT 2615 AS oid , 2 AS attnum UNION ALL SELECT 0, 0 UNION ALL SELECT 1259, 2" + jdbcFieldMetaTail
	if !isJDBCFieldMeta(q) {
		t.Fatal("not recognised")
	}
	specs, rows, err := jdbcFieldMeta(q, 150004)
	if err != nil || specs == nil {
		t.Fatalf("specs %v, err %v", specs, err)
	}
	out, err := rows(nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out {
		var f []string
		for _, v := range r {
			f = append(f, *v)
		}
		got = append(got, strings.Join(f, "|"))
	}
	if want := "2615|2|nspname|pg_namespace|pg_catalog|t|f 1259|2|relname|pg_class|pg_catalog|t|f"; strings.Join(got, " ") != want {
		t.Errorf("rows %q, want %q", got, want)
	}
	user := jdbcFieldMetaHead + "SELECT 16390 AS oid , 1 AS attnum" + jdbcFieldMetaTail
	if specs, _, err := jdbcFieldMeta(user, 150004); specs != nil || err != nil {
		t.Errorf("a user table's origin: specs %v, err %v (want the engine's plan)", specs, err)
	}
	if _, _, err := jdbcFieldMeta(q, 0); err == nil {
		t.Error("major not read: answered")
	}
}
