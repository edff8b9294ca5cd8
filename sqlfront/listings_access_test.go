package sqlfront_test

import (
	"strings"
	"testing"
)

// TestPsqlPrivileges (issue 23): psql's \dp and \z list the followed
// tables', their owned sequences' and views' ACLs, their columns' ACLs
// and the tables' row security policies as PostgreSQL does (pg_policy
// and relacl were refused), with and without patterns, as do \d and \d+
// of a table with policies (their footer was refused); relacl, attacl
// and pg_policy read through SQL answer as PostgreSQL's.
func TestPsqlPrivileges(t *testing.T) {
	r := newRig(t, []string{"public.items", "public.other"}, []string{
		"DROP ROLE IF EXISTS lst_reader", "CREATE ROLE lst_reader",
		"CREATE TABLE items (id serial PRIMARY KEY, v text, w int)",
		"CREATE TABLE other (id int PRIMARY KEY, n numeric)",
		"CREATE VIEW items_view AS SELECT id, v FROM items",
		"GRANT SELECT ON items TO lst_reader", "GRANT UPDATE (v), SELECT (w) ON items TO lst_reader",
		"GRANT SELECT, UPDATE ON items_id_seq TO lst_reader", "GRANT SELECT (v) ON items_view TO PUBLIC", "REVOKE ALL ON other FROM postgres",
		"ALTER TABLE items ENABLE ROW LEVEL SECURITY",
		"CREATE POLICY p1 ON items FOR SELECT TO lst_reader USING (w > 0)",
		"CREATE POLICY p2 ON items AS RESTRICTIVE FOR UPDATE USING (true) WITH CHECK (v <> 'x')",
		"CREATE POLICY p3 ON items USING (id > 0)",
		"CREATE POLICY p4 ON items FOR INSERT TO lst_reader, postgres WITH CHECK (w IS NOT NULL)",
	})
	t.Cleanup(func() { execSQL(t, r.pgURL, "DROP OWNED BY lst_reader", "DROP ROLE IF EXISTS lst_reader") })
	for _, cmd := range []string{`\dp`, `\z`, `\z items`, `\dp items*`, `\dp public.*`, `\dp other`, `\dp nothing`, `\d items`, `\d+ items`} {
		psqlSame(t, r.sqlURL, r.pgURL, cmd, "-c", cmd)
	}
	for _, q := range []string{
		"SELECT polname, polcmd, polpermissive, polroles = '{0}', pg_get_expr(polqual, polrelid), pg_get_expr(polwithcheck, polrelid, true) " +
			"FROM pg_policy WHERE polrelid = 'items'::regclass ORDER BY polname",
		"SELECT c.relname, array_to_string(c.relacl, ','), c.relacl IS NULL FROM pg_class c WHERE c.relname IN ('items', 'other', 'items_view', 'items_id_seq', 'items_pkey') ORDER BY 1",
		"SELECT a.attname, array_to_string(a.attacl, ',') FROM pg_attribute a WHERE a.attrelid = 'items'::regclass AND a.attnum > 0 ORDER BY a.attnum",
	} {
		psqlSame(t, r.sqlURL, r.pgURL, q, "-At", "-c", q)
	}
	// aclitem is not sidecar's type: the column itself is refused.
	psqlRefused(t, r, "SELECT relacl FROM pg_class WHERE relname = 'items'")
}

// TestPsqlPrivilegesRefused (issue 23): \dp is refused 0A000 where
// sidecar cannot know PostgreSQL's answer: policies whose physical
// order (a sequential scan's, PostgreSQL's plan for pg_policy) is not
// their name order, and a sequence column's ACL (pg_attribute does not
// list a sequence's columns).
func TestPsqlPrivilegesRefused(t *testing.T) {
	r := newRig(t, []string{"public.ord"}, []string{
		"CREATE TABLE ord (id serial PRIMARY KEY)", "ALTER TABLE ord ENABLE ROW LEVEL SECURITY",
		"CREATE POLICY zz ON ord USING (true)", "CREATE POLICY aa ON ord USING (false)",
		"GRANT SELECT (last_value) ON ord_id_seq TO PUBLIC"})
	psqlRefused(t, r, `\dp`, `\z ord`)
	// One policy and no sequence column ACL's proof: answered.
	psqlSame(t, r.sqlURL, r.pgURL, "policies", "-At", "-c", "SELECT polname FROM pg_policy ORDER BY 1")
}

// TestPsqlDescribeIndex (issue 23): psql's \d and \d+ of an index
// (a plain, partial, expression, INCLUDE, unique, primary key, a
// deferrable constraint's, a replica identity and a clustered expression index
// with options) answer as PostgreSQL (they were refused "sidecar's psql
// support describes tables"), as does \d with a pattern matching a
// table and its indexes; \di+ (sizes), \dconfig (the server's settings)
// stay refused 0A000; \dC answers since session 25 (psql_casts.go); \sf
// prints the definition.
func TestPsqlDescribeIndex(t *testing.T) {
	r := newRig(t, []string{"public.items"}, []string{
		"CREATE TABLE items (id int PRIMARY KEY, v varchar(20), w int NOT NULL, d numeric(10,2), u int UNIQUE DEFERRABLE INITIALLY DEFERRED)",
		"CREATE INDEX items_v ON items (v) WHERE w > 0",
		"CREATE UNIQUE INDEX items_w ON items (w DESC NULLS LAST) INCLUDE (v, d)",
		"CREATE INDEX items_e ON items (lower(v), (w + 1)) WITH (fillfactor = 70)",
		"CREATE UNIQUE INDEX items_ri ON items (w)", "ALTER TABLE items REPLICA IDENTITY USING INDEX items_ri",
		"CREATE INDEX items_h ON items USING hash (d)", "CLUSTER items USING items_e",
		"CREATE FUNCTION addone(i int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT i + 1'",
	})
	for _, cmd := range []string{`\d items_v`, `\d+ items_v`, `\d items_w`, `\d+ items_w`, `\d items_e`, `\d+ items_e`, `\d items_pkey`,
		`\d+ items_u_key`, `\d items_ri`, `\d items_h`, `\d+ items_h`, `\d items*`, `\d+ public.items_*`, `\di`, `\di items_*`, `\dC`, `\dC int*`} {
		psqlSame(t, r.sqlURL, r.pgURL, cmd, "-c", cmd)
	}
	psqlRefused(t, r, `\di+`, `\dconfig`, `\dconfig work_mem`)
	// \sf reads the function facts (section 'v', TestPsqlShowFunction).
	psqlSame(t, r.sqlURL, r.pgURL, `\sf addone`, "-c", `\sf addone`)
}

// TestPsqlPrivilegesFollowDDL (issue 23): GRANT, column GRANT, CREATE
// POLICY and CREATE INDEX while following (none of them in the logical
// stream) are read by the daemon's catalog poll: relacl, attacl,
// pg_policy and \d of the new index answer as PostgreSQL within a poll.
func TestPsqlPrivilegesFollowDDL(t *testing.T) {
	pgURL, sqlURL := liveDaemon(t, []string{"public.pf"}, []string{"DROP ROLE IF EXISTS lst_late", "CREATE ROLE lst_late",
		"CREATE TABLE pf (id int PRIMARY KEY, v text)"})
	t.Cleanup(func() { execSQL(t, pgURL, "DROP OWNED BY lst_late", "DROP ROLE IF EXISTS lst_late") })
	_, scp := liveConns(t, pgURL)
	const q = "SELECT array_to_string(c.relacl, ','), (SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid), " +
		"(SELECT array_to_string(a.attacl, ',') FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'v') FROM pg_class c WHERE c.relname = 'pf'"
	eventuallySQL(t, sqlURL, scp, "before GRANT: ", q, func(rows []string, err error) bool {
		return err == nil && strings.Join(rows, ";") == `NULL|"0"|NULL`
	})
	execSQL(t, pgURL, "GRANT SELECT ON pf TO lst_late", "GRANT UPDATE (v) ON pf TO lst_late", "CREATE POLICY late ON pf USING (id > 1)",
		"CREATE INDEX pf_v ON pf (v)")
	eventuallySQL(t, sqlURL, scp, "after GRANT: ", q, func(rows []string, err error) bool {
		return err == nil && strings.Join(rows, ";") == `"postgres=arwdDxt/postgres,lst_late=r/postgres"|"1"|"lst_late=w/postgres"` ||
			strings.Join(rows, ";") == `"postgres=arwdDxtm/postgres,lst_late=r/postgres"|"1"|"lst_late=w/postgres"` // 17+: MAINTAIN
	})
	eventuallySQL(t, sqlURL, scp, "after CREATE INDEX: ", "SELECT relname FROM pg_class WHERE relname = 'pf_v'", func(rows []string, err error) bool {
		return err == nil && len(rows) == 1
	})
	for _, cmd := range []string{`\dp pf`, `\d pf_v`} {
		psqlSame(t, sqlURL, pgURL, cmd, "-c", cmd)
	}
}
