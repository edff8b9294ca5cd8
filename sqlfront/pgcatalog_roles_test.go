package sqlfront_test

import (
	"strings"
	"testing"
)

// roleSetup creates roles with every attribute psql's \du prints (login,
// superuser-less, CREATEDB/CREATEROLE, a connection limit, a password
// expiry, a per-role setting, memberships with and without ADMIN); the
// roles are the cluster's, so they are dropped first (a rerun on the same
// cluster) and after the test.
var roleSetup = []string{
	"DROP ROLE IF EXISTS cat_reader", "DROP ROLE IF EXISTS cat_admin", "DROP ROLE IF EXISTS cat_group",
	"CREATE ROLE cat_group NOLOGIN",
	"CREATE ROLE cat_reader LOGIN CONNECTION LIMIT 3 VALID UNTIL '2030-01-02 03:04:05.25+00' IN ROLE cat_group",
	"ALTER ROLE cat_reader SET work_mem = '1MB'",
	"CREATE ROLE cat_admin CREATEDB CREATEROLE NOINHERIT", "GRANT cat_group TO cat_admin WITH ADMIN OPTION",
	"COMMENT ON ROLE cat_group IS 'the readers'",
}

func dropRoles(t *testing.T, url string) {
	t.Cleanup(func() {
		execSQL(t, url, "DROP ROLE IF EXISTS cat_reader", "DROP ROLE IF EXISTS cat_admin", "DROP ROLE IF EXISTS cat_group")
	})
}

// TestCatalogRoles (issue 23): psql's \du and \dg print what PostgreSQL
// prints (they were refused: the roles were not read), and pg_roles,
// pg_user, pg_auth_members and pg_get_userbyid answer as PostgreSQL's,
// on the followed server's major (pg_auth_members has an oid and two
// more options from 16).
func TestCatalogRoles(t *testing.T) {
	r := newRig(t, []string{"public.items"}, append(roleSetup, "CREATE TABLE items (id int PRIMARY KEY)"))
	dropRoles(t, r.pgURL)
	for _, cmd := range []string{`\du`, `\dg`, `\du cat_*`, `\du+`} {
		if got, want := psqlBoth(t, r, cmd); got != want {
			t.Errorf("%s:\n%s\nPostgreSQL:\n%s", cmd, got, want)
		}
	}
	for _, q := range []string{
		"SELECT * FROM pg_roles WHERE rolname LIKE 'cat%' ORDER BY rolname",
		"SELECT count(*) FROM pg_roles",
		"SELECT * FROM pg_user ORDER BY usename",
		"SELECT * FROM pg_auth_members ORDER BY roleid, member",
		"SELECT r.rolname, g.rolname, m.admin_option FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member JOIN pg_roles g ON g.oid = m.roleid ORDER BY 1, 2",
		"SELECT pg_get_userbyid(oid) FROM pg_roles ORDER BY 1",
		"SELECT pg_get_userbyid(1)",
		"SELECT rolname, shobj_description(oid, 'pg_authid') FROM pg_roles WHERE rolname LIKE 'cat%' ORDER BY rolname",
		"SET TimeZone = 'UTC+3'; SELECT rolvaliduntil, rolvaliduntil::text FROM pg_roles WHERE rolname = 'cat_reader'",
		"SELECT rolconfig[1], array_length(rolconfig, 1) FROM pg_roles WHERE rolname = 'cat_reader'",
	} {
		psqlRig(r).withArgs("-At").same(t, q)
	}
}

// TestCatalogRolesFollowDDL: the daemon's catalog poll reads the roles
// again, so a role created while following is listed (within a poll).
func TestCatalogRolesFollowDDL(t *testing.T) {
	pgURL, sqlURL := liveDaemon(t, []string{"public.rf"}, []string{"DROP ROLE IF EXISTS cat_late", "CREATE TABLE rf (id int PRIMARY KEY)"})
	t.Cleanup(func() { execSQL(t, pgURL, "DROP ROLE IF EXISTS cat_late") })
	_, scp := liveConns(t, pgURL)
	const q = "SELECT rolname, rolcanlogin FROM pg_roles WHERE rolname = 'cat_late'"
	eventuallySQL(t, sqlURL, scp, "before CREATE ROLE: ", q, func(rows []string, err error) bool { return err == nil && len(rows) == 0 })
	execSQL(t, pgURL, "CREATE ROLE cat_late LOGIN")
	eventuallySQL(t, sqlURL, scp, "after CREATE ROLE: ", q, func(rows []string, err error) bool {
		return err == nil && strings.Join(rows, ";") == `"cat_late"|"t"`
	})
}
