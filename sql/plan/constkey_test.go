package plan_test

import (
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/types"
)

// TestBoolKeyByMajor: TRUE/FALSE as a key of ORDER BY, GROUP BY or
// DISTINCT ON are expressions before PostgreSQL 15 (14's grammar made
// them casts of strings) and 42601 "non-integer constant" from 15 and
// when the major is not known (constkeys.diff.sql on 14).
func TestBoolKeyByMajor(t *testing.T) {
	stmts := []string{
		"SELECT DISTINCT ON (false) false, r_regionkey FROM region",
		"SELECT r_regionkey FROM region ORDER BY true",
		"SELECT count(*) FROM region GROUP BY false",
	}
	names := map[int]string{140000: "bool", 150000: "?column?"}
	for _, version := range []int{140000, 150000, 180000, -1} {
		cat, err := plantest.LoadCatalog("testdata/catalog.sql")
		if err != nil {
			t.Fatal(err)
		}
		if version > 0 {
			cat.Funcs = builtin.NewFor(types.Dialect{Version: version})
		}
		if q, err := Bind("SELECT true", cat); err != nil || names[version] != "" && q.Names[0] != names[version] {
			t.Errorf("major %d: SELECT true: %v %v, want the column named %q", version, q, err, names[version])
		}
		for _, sql := range stmts {
			_, err := Bind(sql, cat)
			got := "bound"
			if err != nil {
				got = ErrorText(err)
			}
			want := "error 42601: non-integer constant"
			if version == 140000 {
				want = "bound"
			}
			if !strings.HasPrefix(got, want) {
				t.Errorf("major %d: %s: %s, want %s", version, sql, got, want)
			}
		}
	}
}
