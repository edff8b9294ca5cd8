package sqlfront_test

import (
	"strings"
	"testing"
)

// TestInfoSchemaPrivileges: PostgreSQL's information_schema lists only
// what the session's role owns or holds a privilege on. sidecar listed
// every followed table and column whatever the role (six columns where
// PostgreSQL lists none), then refused the views for a role that does
// not own everything (session 25); now the rows are filtered as
// PostgreSQL's views filter them. Roles: none at all (isp_nopriv), SELECT on
// a table and one column of another (isp_reader), INSERT on one column
// (isp_writer: table_constraints shows a table for INSERT, not for SELECT),
// REFERENCES on a table (isp_refs), members of a role granted SELECT and a
// sequence and a schema — inheriting (isp_heir) and NOINHERIT (isp_noinh), and
// on 16+ a membership WITH INHERIT FALSE (isp_heirnoinh) —, a member of
// pg_read_all_data (isp_readall), a role owning everything through its
// membership (isp_ownerheir), a superuser; a table granted to PUBLIC, an
// unfollowed table with a column grant, a view, a sequence, a schema
// granted USAGE.
func TestInfoSchemaPrivileges(t *testing.T) {
	setup := []string{
		"CREATE TABLE items (id int PRIMARY KEY, v text)", "CREATE TABLE secret (id int PRIMARY KEY, item int REFERENCES items, pin text UNIQUE)",
		"CREATE TABLE open (id int PRIMARY KEY)", "GRANT SELECT ON open TO PUBLIC",
		"CREATE TABLE unfollowed (id int PRIMARY KEY, note text)", "CREATE VIEW items_v AS SELECT id FROM items",
		"CREATE SEQUENCE counter", "CREATE SCHEMA hidden", "CREATE TABLE hidden.h (id int PRIMARY KEY)",
		"CREATE ROLE isp_nopriv LOGIN", "CREATE ROLE isp_reader LOGIN", "GRANT SELECT ON items TO isp_reader", "GRANT SELECT (id) ON secret TO isp_reader",
		"GRANT SELECT (note) ON unfollowed TO isp_reader", "GRANT SELECT ON items_v TO isp_reader",
		"CREATE ROLE isp_writer LOGIN", "GRANT INSERT (v) ON items TO isp_writer", "CREATE ROLE isp_refs LOGIN", "GRANT REFERENCES ON secret TO isp_refs",
		"CREATE ROLE isp_grp NOLOGIN", "GRANT SELECT ON secret TO isp_grp", "GRANT USAGE ON SEQUENCE counter TO isp_grp", "GRANT USAGE ON SCHEMA hidden TO isp_grp",
		"CREATE ROLE isp_heir LOGIN", "GRANT isp_grp TO isp_heir", "CREATE ROLE isp_noinh LOGIN NOINHERIT", "GRANT isp_grp TO isp_noinh",
		"CREATE ROLE isp_readall LOGIN", "GRANT pg_read_all_data TO isp_readall",
		"CREATE ROLE isp_appowner NOLOGIN", "ALTER TABLE items OWNER TO isp_appowner", "ALTER TABLE secret OWNER TO isp_appowner",
		"CREATE ROLE isp_ownerheir LOGIN", "GRANT isp_appowner TO isp_ownerheir",
	}
	v := serverVersionNum(t, &rig{pgURL: pg.NewDB(t)})
	users := []string{"isp_nopriv", "isp_reader", "isp_writer", "isp_refs", "isp_heir", "isp_noinh", "isp_readall", "isp_ownerheir", "postgres"}
	if v >= 160000 {
		setup = append(setup, "CREATE ROLE isp_heirnoinh LOGIN", "GRANT isp_grp TO isp_heirnoinh WITH INHERIT FALSE")
		users = append(users, "isp_heirnoinh")
	}
	r := newRig(t, []string{"public.items", "public.secret", "public.open", "hidden.h"}, setup)
	queries := []string{
		"SELECT table_schema, table_name, table_type FROM information_schema.tables WHERE table_schema IN ('public', 'hidden') ORDER BY 1, 2",
		"SELECT table_name, column_name, ordinal_position FROM information_schema.columns WHERE table_schema IN ('public', 'hidden') ORDER BY 1, 2",
		"SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
		"SELECT schema_name FROM information_schema.schemata ORDER BY 1",
		"SELECT sequence_schema, sequence_name FROM information_schema.sequences ORDER BY 1, 2",
	}
	// The constraint views are refused on 18 whatever the role
	// (catalog_infoschema.go's infoSchemaMajor).
	constraints := []string{
		"SELECT table_name, column_name, ordinal_position FROM information_schema.key_column_usage WHERE table_schema = 'public' ORDER BY 1, 2, 3",
		"SELECT table_name, constraint_type FROM information_schema.table_constraints WHERE table_schema = 'public' AND constraint_type <> 'CHECK' ORDER BY 1, 2",
		"SELECT table_name, column_name, constraint_name FROM information_schema.constraint_column_usage WHERE table_schema = 'public' ORDER BY 1, 2, 3",
		"SELECT constraint_name, unique_constraint_name FROM information_schema.referential_constraints WHERE constraint_schema = 'public' ORDER BY 1",
		// The followed tables alone: answered (the unfollowed table's
		// constraints, which sidecar does not read, are refused above).
		"SELECT table_name, column_name, ordinal_position FROM information_schema.key_column_usage WHERE table_name IN ('items', 'secret', 'open') ORDER BY 1, 2, 3",
		"SELECT table_name, constraint_type FROM information_schema.table_constraints WHERE table_name IN ('items', 'secret', 'open') AND constraint_type <> 'CHECK' ORDER BY 1, 2",
		"SELECT table_name, column_name, constraint_name FROM information_schema.constraint_column_usage WHERE table_name IN ('items', 'secret', 'open') ORDER BY 1, 2, 3",
	}
	as := func(user string) psqlCheck {
		return psqlCheck{sqlURL: strings.Replace(r.sqlURL, "//app@", "//"+user+"@", 1), pgURL: strings.Replace(r.pgURL, "//postgres@", "//"+user+"@", 1)}
	}
	// The privilege functions, for the session's user and for a role
	// named, and PostgreSQL's errors.
	funcs := []string{
		"SELECT c.relname, c.relkind, has_table_privilege(c.oid, 'SELECT'), has_table_privilege(c.oid, 'INSERT, UPDATE'), " +
			"has_any_column_privilege(c.oid, 'SELECT'), has_any_column_privilege(c.oid, 'insert') FROM pg_class c " +
			"JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname IN ('public', 'hidden') AND c.relkind IN ('r', 'v', 'S') ORDER BY 1",
		"SELECT has_table_privilege('items', 'select'), has_table_privilege('public.secret', ' SELECT '), has_schema_privilege('hidden', 'USAGE'), " +
			"has_schema_privilege('public', 'CREATE'), has_sequence_privilege('counter', 'USAGE'), pg_has_role('isp_grp', 'USAGE'), pg_has_role('isp_grp', 'MEMBER')",
		"SELECT has_table_privilege('isp_reader', 'items', 'SELECT'), has_table_privilege('isp_nopriv', 'public.open', 'SELECT'), " +
			"pg_has_role('isp_heir', 'isp_grp', 'USAGE'), pg_has_role('isp_noinh', 'isp_grp', 'USAGE'), pg_has_role('isp_noinh', 'isp_grp', 'MEMBER')",
		"SELECT nspname, has_schema_privilege(oid, 'CREATE, USAGE') FROM pg_namespace WHERE nspname IN ('public', 'hidden', 'pg_catalog') ORDER BY 1",
	}
	errs := []string{"SELECT has_table_privilege('nosuch', 'SELECT')", "SELECT has_table_privilege('items', 'FLY')",
		"SELECT has_schema_privilege('nosuch', 'USAGE')", "SELECT pg_has_role('nosuch', 'USAGE')"}
	for _, user := range users {
		t.Run(user, func(t *testing.T) {
			as(user).same(t, queries...)
			as(user).orRefused().same(t, constraints...)
			as(user).same(t, funcs...)
			as(user).orSameError().same(t, errs...)
		})
	}
}
