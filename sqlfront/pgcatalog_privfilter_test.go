package sqlfront_test

import (
	"strings"
	"testing"
)

// TestInfoSchemaPrivileges: PostgreSQL's information_schema lists only
// what the session's role owns or holds a privilege on. Connected as a
// role of the server that owns nothing (nopriv), or was granted SELECT
// on one table and one column of another (reader), sidecar listed every
// followed table and column (six columns where PostgreSQL lists none,
// and three): now refused 0A000, as for a role that does not inherit
// its owner role's privileges (noinh). A role owning every relation
// (appowner), one inheriting that role (heir) and a superuser get
// PostgreSQL's answer.
func TestInfoSchemaPrivileges(t *testing.T) {
	r := newRig(t, []string{"public.items", "public.secret"}, []string{
		"CREATE TABLE items (id int PRIMARY KEY, v text)", "CREATE TABLE secret (id int PRIMARY KEY, item int REFERENCES items, pin text)",
		"CREATE ROLE nopriv LOGIN", "CREATE ROLE reader LOGIN", "GRANT SELECT ON items TO reader", "GRANT SELECT (id) ON secret TO reader",
		"CREATE ROLE appowner LOGIN", "ALTER TABLE items OWNER TO appowner", "ALTER TABLE secret OWNER TO appowner", "ALTER TABLE marker OWNER TO appowner",
		"CREATE ROLE heir LOGIN", "GRANT appowner TO heir", "CREATE ROLE noinh LOGIN NOINHERIT", "GRANT appowner TO noinh",
	})
	queries := []string{
		"SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
		"SELECT table_name, column_name, ordinal_position FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2",
		"SELECT count(*) FROM information_schema.key_column_usage WHERE table_schema = 'public'",
		"SELECT table_name, constraint_type FROM information_schema.table_constraints WHERE table_schema = 'public' AND constraint_type <> 'CHECK' ORDER BY 1, 2",
	}
	as := func(user string) psqlCheck {
		return psqlCheck{sqlURL: strings.Replace(r.sqlURL, "//app@", "//"+user+"@", 1), pgURL: strings.Replace(r.pgURL, "//postgres@", "//"+user+"@", 1)}
	}
	for _, user := range []string{"nopriv", "reader", "noinh"} {
		as(user).refused(t, nil, append(queries, "SELECT schema_name FROM information_schema.schemata ORDER BY 1")...)
	}
	for _, user := range []string{"appowner", "heir", "postgres"} {
		as(user).same(t, queries[:2]...)
		// The constraint views are refused on 18 whatever the role
		// (catalog_infoschema.go's infoSchemaMajor).
		as(user).orRefused().same(t, queries[2:]...)
	}
	as("postgres").same(t, "SELECT schema_name FROM information_schema.schemata ORDER BY 1")
}
