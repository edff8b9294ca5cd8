package sqlfront

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestClusterRolesKnownOrRefused: the roles are answered only when the
// followed tables' facts read them and agree; a table copied before
// roles were read does not count, tables whose records read different
// lists (between two polls' records) make them unknown, and so does no
// table having read them — each refused, never answered from one list.
func TestClusterRolesKnownOrRefused(t *testing.T) {
	a := []wal.RoleFacts{{OID: 10, Name: "postgres", Super: true}, {OID: 16385, Name: "alice", CanLogin: true}}
	b := []wal.RoleFacts{{OID: 10, Name: "postgres", Super: true}}
	tab := func(roles []wal.RoleFacts, read bool) Table {
		return Table{Facts: &wal.Facts{Schema: &wal.SchemaFacts{Roles: roles, RolesRead: read}}}
	}
	for _, c := range []struct {
		name   string
		tables []Table
		known  bool
	}{
		{"none read", []Table{tab(nil, false), {}}, false},
		{"one read", []Table{tab(nil, false), tab(a, true)}, true},
		{"two agree", []Table{tab(a, true), tab(append([]wal.RoleFacts(nil), a...), true)}, true},
		{"two differ", []Table{tab(a, true), tab(b, true)}, false},
	} {
		_, _, ok := clusterRoles(c.tables)
		err := refuseRoles(&pgCatCtx{tables: c.tables})
		if ok != c.known || (err == nil) != c.known {
			t.Errorf("%s: known %v (refusal %v), want known %v", c.name, ok, err, c.known)
		}
		if name, found := roleName(c.tables, 16385); found != c.known || found && name != "alice" {
			t.Errorf("%s: role 16385 %q %v", c.name, name, found)
		}
	}
}
