package sqlfront_test

import (
	"strings"
	"testing"
	"time"
)

// eventuallyRefusedUnfollowed waits until sql fails on sidecar with
// 0A000 naming the relation as not followed (the catalog poll reads the
// relation list up to a poll after DDL).
func eventuallyRefusedUnfollowed(t *testing.T, sqlURL, sql, relation string) {
	t.Helper()
	var got string
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var err error
		got, err = psql(t, sqlURL, "-v", "VERBOSITY=verbose", "-c", sql)
		if err != nil && strings.Contains(got, "0A000") && strings.Contains(got, `relation "`+relation+`" is not followed by sidecar`) {
			return
		}
	}
	t.Fatalf("%s after 2 minutes: want 0A000 naming %s not followed, got\n%s", sql, relation, got)
}

// TestUnfollowedRelationsListed: relations the source has and sidecar
// does not follow — a standalone sequence, a table outside the followed
// set, one in another schema, a materialized view — and schemas holding
// no followed table are in the catalog as PostgreSQL lists them (psql's
// \dn, \ds, \dt, \dm, pg_class, pg_namespace, pg_sequence), reading one
// is refused 0A000 naming it, and the catalog poll follows CREATE/DROP
// SEQUENCE, a table created outside the followed set and a schema
// created and dropped. All of it answered without them before (a
// sequence missing from \ds, \d counter "Did not find any relation",
// SELECT FROM other 42P01, \dn without empty schemas).
func TestUnfollowedRelationsListed(t *testing.T) {
	pgURL, sqlURL := liveDaemon(t, []string{"public.items"}, []string{
		"CREATE TABLE items (id serial PRIMARY KEY, v text)", "INSERT INTO items VALUES (1, 'a')",
		"CREATE SEQUENCE counter START 10 INCREMENT 5", "SELECT nextval('counter')",
		"CREATE TABLE other (id int PRIMARY KEY)", "CREATE SCHEMA s2", "CREATE TABLE s2.t (id int PRIMARY KEY)", "CREATE SCHEMA empty",
		"CREATE TABLE s2.items (id int PRIMARY KEY, w int)", "INSERT INTO s2.items VALUES (7, 7)",
		"CREATE MATERIALIZED VIEW mv AS SELECT 1 AS x",
	})
	listings := []string{`\dn`, `\ds`, `\dt`, `\dm`, `\dt s2.*`, `\d`,
		`SELECT nspname FROM pg_catalog.pg_namespace WHERE nspname !~ '^pg_' ORDER BY 1`,
		`SELECT c.relname, c.relkind, c.relpersistence, c.relnatts, c.relhasindex FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname IN ('public', 's2') ORDER BY 1`,
		`SELECT c.relname, s.seqstart, s.seqincrement, s.seqmax, s.seqmin, s.seqcache, s.seqcycle FROM pg_catalog.pg_sequence s JOIN pg_catalog.pg_class c ON c.oid = s.seqrelid ORDER BY 1`,
		`SELECT schema_name FROM information_schema.schemata WHERE schema_name !~ '^pg_' ORDER BY 1`,
		`SELECT sequence_schema, sequence_name, data_type, numeric_precision, numeric_precision_radix, numeric_scale, start_value, minimum_value,
			maximum_value, increment, cycle_option FROM information_schema.sequences ORDER BY 2`,
		`SELECT table_schema, table_name, table_type, is_insertable_into FROM information_schema.tables WHERE table_schema IN ('public', 's2') ORDER BY 2`,
		`SELECT schemaname, tablename, tableowner, hasindexes, hastriggers FROM pg_catalog.pg_tables WHERE schemaname IN ('public', 's2') ORDER BY 2`,
	}
	for _, cmd := range listings {
		eventuallyPsqlSame(t, sqlURL, pgURL, "after the copy: ", cmd)
	}
	eventuallyRefusedUnfollowed(t, sqlURL, "SELECT * FROM counter", "public.counter")
	eventuallyRefusedUnfollowed(t, sqlURL, "SELECT count(*) FROM other", "public.other")
	eventuallyRefusedUnfollowed(t, sqlURL, "SELECT * FROM s2.t", "s2.t")
	eventuallyPsqlSame(t, sqlURL, pgURL, "a followed table still read: ", "SELECT * FROM items")
	// An unqualified name finds the unfollowed s2.items first on this
	// path, as PostgreSQL does (sidecar read public.items before).
	if out, err := psql(t, sqlURL, "-v", "VERBOSITY=verbose", "-c", "SET search_path = s2, public", "-c", "SELECT * FROM items"); err == nil ||
		!strings.Contains(out, `relation "s2.items" is not followed by sidecar`) {
		t.Errorf("SELECT * FROM items under search_path s2, public: want 0A000 naming s2.items, got (%v)\n%s", err, out)
	}

	// DDL while following: a sequence created and one dropped, a table
	// created outside the followed set, a schema created, one emptied
	// and one dropped.
	execSQL(t, pgURL, "CREATE SEQUENCE counter2 AS int MAXVALUE 1000 CYCLE", "DROP SEQUENCE counter", "CREATE TABLE later (id int)",
		"CREATE SCHEMA s3", "DROP TABLE s2.t", "DROP SCHEMA empty")
	for _, cmd := range listings {
		eventuallyPsqlSame(t, sqlURL, pgURL, "after CREATE/DROP SEQUENCE, CREATE TABLE, CREATE/DROP SCHEMA: ", cmd)
	}
	eventuallyRefusedUnfollowed(t, sqlURL, "SELECT * FROM later", "public.later")
	eventuallyRefusedUnfollowed(t, sqlURL, "SELECT last_value FROM counter2", "public.counter2")
}
