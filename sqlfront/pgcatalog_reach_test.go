package sqlfront_test

import (
	"strings"
	"testing"
)

// catalogCompare runs each statement on sidecar and PostgreSQL with
// psql -At and verbose errors: the ones in same must print what
// PostgreSQL prints; the ones in refused must be refused with 0A000
// where PostgreSQL answers (they would answer differently).
func catalogCompare(t *testing.T, r *rig, same, refused []string) {
	t.Helper()
	run := func(url, q string) (string, error) {
		return psql(t, url, "-At", "-v", "VERBOSITY=verbose", "-c", q)
	}
	for _, q := range same {
		got, err := run(r.sqlURL, q)
		want, werr := run(r.pgURL, q)
		if werr != nil {
			t.Fatalf("%s on PostgreSQL: %v\n%s", q, werr, want)
		}
		if err != nil || got != want {
			t.Errorf("%s:\n  sidecar    %q (%v)\n  PostgreSQL %q", q, got, err, want)
		}
	}
	for _, q := range refused {
		want, werr := run(r.pgURL, q)
		if werr != nil {
			t.Fatalf("%s on PostgreSQL: %v\n%s", q, werr, want)
		}
		got, err := run(r.sqlURL, q)
		if err == nil || !strings.Contains(got, "0A000") {
			t.Errorf("%s: want 0A000 (PostgreSQL answers %q), got %q (%v)", q, want, got, err)
		}
	}
}

// TestCatalogSystemRows: the catalog relations lacking PostgreSQL's own
// objects answer statements restricted to user objects and refuse the
// others (`… WHERE relname = 'pg_namespace'` answered no rows before).
func TestCatalogSystemRows(t *testing.T) {
	r := catalogRig(t)
	catalogCompare(t, r, []string{
		"SELECT relname FROM pg_class WHERE relname = 'items'",
		"SELECT relname FROM pg_class WHERE relname LIKE 'acc%' ORDER BY 1",
		"SELECT relname FROM pg_class WHERE relname ~ '^(items)$'",
		"SELECT relname FROM pg_class WHERE relname IN ('items', 'accounts') ORDER BY 1",
		"SELECT relname FROM pg_class WHERE relname LIKE 'items%' ORDER BY 1", // items' sequence included
		"SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 1",
		"SELECT a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'accounts' AND a.attnum > 0 ORDER BY a.attnum",
		"SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relname = 'items'",
		"SELECT conname FROM pg_constraint WHERE conrelid IN (SELECT oid FROM pg_class WHERE relname = 'items') ORDER BY 1",
		"SELECT c.relname FROM pg_class c LEFT JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r','p') " +
			"AND n.nspname <> 'pg_catalog' AND n.nspname !~ '^pg_toast' AND n.nspname <> 'information_schema' ORDER BY 1",
		// The bootstrap catalogs are listed (pgcatalog_sysclass.go).
		"SELECT oid::int8 FROM pg_class WHERE relname = 'pg_class'",
	}, []string{
		"SELECT oid::int8 FROM pg_class WHERE relname = 'pg_namespace'",
		// pg_attribute and pg_description lack an index's rows.
		"SELECT a.attname FROM pg_attribute a WHERE a.attrelid IN (SELECT oid FROM pg_class WHERE relname = 'items_key') AND a.attnum > 0",
		"SELECT a.attname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid WHERE c.relname = 'items_key' AND a.attnum > 0",
		"SELECT count(*) FROM pg_description WHERE objoid IN (SELECT oid FROM pg_class WHERE relname = 'items_key')",
		"SELECT count(*) > 0 FROM pg_class",
		"SELECT relname FROM pg_class WHERE relname LIKE 'pg_cl%'",
		"SELECT relname FROM pg_class WHERE relname ~ '^(tables)$'",
		"SELECT count(*) FROM pg_class WHERE relname ~ 'items'",
		"SELECT count(*) FROM pg_attribute WHERE attrelid = 1259",
		"SELECT count(*) FROM pg_class WHERE oid = 99999",
		"SELECT count(*) FROM pg_class WHERE relname IN ('items', 'pg_class')",
		"SELECT count(*) > 0 FROM pg_index",
		"SELECT count(*) > 0 FROM pg_description",
		"SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'pg_catalog'",
		"SELECT count(*) > 0 FROM pg_class c LEFT JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname <> 'pg_catalog'",
	})
}

// TestCatalogConstraintKeys: pg_constraint.conkey and confkey are int2[]
// as in PostgreSQL (they were unknown: refused), usable with subscripts,
// ANY and array functions.
func TestCatalogConstraintKeys(t *testing.T) {
	r := catalogRig(t)
	catalogCompare(t, r, []string{
		"SELECT conname, conkey, confkey FROM pg_constraint WHERE conrelid IN (SELECT oid FROM pg_class WHERE relname IN ('items', 'accounts')) ORDER BY 1",
		"SELECT array_to_string(conkey, ',') FROM pg_constraint WHERE conrelid IN (SELECT oid FROM pg_class WHERE relname = 'items') AND contype = 'p'",
		"SELECT con.conname, a.attname FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid JOIN pg_attribute a ON a.attrelid = c.oid " +
			"WHERE c.relname = 'items' AND a.attnum = ANY(con.conkey) ORDER BY 1, 2",
		"SELECT con.conname, con.conkey[1], array_length(con.confkey, 1) FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid " +
			"WHERE c.relname = 'items' AND con.contype = 'f'",
	}, nil)
}

// TestCatalogSettings: pg_settings answers for the settings sidecar
// keeps when the statement names them, and refuses the others (it did
// not exist: 42P01).
func TestCatalogSettings(t *testing.T) {
	r := catalogRig(t)
	catalogCompare(t, r, []string{
		"SELECT setting FROM pg_catalog.pg_settings WHERE name = 'max_index_keys'",
		"SELECT (SELECT setting FROM pg_catalog.pg_settings WHERE name = 'max_index_keys')::int + 1",
		"SELECT name, setting, unit, short_desc FROM pg_settings WHERE name IN ('DateStyle', 'search_path', 'standard_conforming_strings') ORDER BY 1",
		"SELECT category FROM pg_settings WHERE name = 'DateStyle'", // the parameter table's (settings_params.go)
	}, []string{
		"SELECT count(*) > 0 FROM pg_settings",
		"SELECT setting FROM pg_settings WHERE name = 'work_mem'",
		"SELECT setting FROM pg_settings WHERE name = 'statement_timeout'",
	})
}

// TestCatalogUnserved: relations and functions PostgreSQL has that
// sidecar's catalog does not serve are refused 0A000 (they answered
// 42P01/42883, "does not exist").
func TestCatalogUnserved(t *testing.T) {
	r := catalogRig(t)
	catalogCompare(t, r, nil, []string{
		"SELECT count(*) > 0 FROM pg_catalog.pg_proc",
		"SELECT n.nspname FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE p.proname = 'now'",
		"SELECT pg_table_size(c.oid) >= 0 FROM pg_class c WHERE c.relname = 'items'",
		"SELECT pg_total_relation_size(c.oid) >= 0 FROM pg_class c WHERE c.relname = 'items'",
	})
}

// TestCatalogIndexVectors: pg_index's int2vector and oidvector columns
// (indkey, indoption, indclass, indcollation), its predicate through
// pg_get_expr, its expressions and the indexes' reloptions answer as on
// PostgreSQL: printed, cast, subscripted from 0, unnested, compared
// with = ANY (SQLAlchemy's get_pk_constraint and get_indexes).
func TestCatalogIndexVectors(t *testing.T) {
	r := catalogRig(t)
	idx := "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid IN (SELECT oid FROM pg_class WHERE relname IN ('items', 'accounts')) "
	catalogCompare(t, r, []string{
		"SELECT c.relname, i.indkey, i.indkey::varchar, i.indoption::text, i.indclass, i.indcollation, i.indnkeyatts " + idx + "ORDER BY 1",
		"SELECT c.relname, i.indkey[0], i.indkey[1], i.indoption[1], array_lower(i.indkey, 1), array_upper(i.indkey, 1), array_dims(i.indkey), " +
			"cardinality(i.indkey) " + idx + "ORDER BY 1",
		"SELECT c.relname, pg_get_expr(i.indpred, i.indrelid), pg_get_expr(i.indpred, i.indrelid, true), i.indexprs IS NULL, c.reloptions " + idx + "ORDER BY 1",
		"SELECT c.relname, i.indexprs " + idx + "AND i.indexprs IS NOT NULL ORDER BY 1",
		"SELECT c.relname, a.attname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) " +
			"WHERE i.indrelid IN (SELECT oid FROM pg_class WHERE relname IN ('items', 'accounts')) ORDER BY 1, 2",
		"SELECT relname, reloptions FROM pg_class WHERE relname IN ('items', 'accounts') ORDER BY 1",
	}, []string{
		// PostgreSQL keeps the lower bound: [0:1]={1,2}.
		"SELECT c.relname, i.indkey::int2[] " + idx + "ORDER BY 1",
	})
}

// TestCatalogUnknownFiltered: a catalog row holding a value sidecar does
// not know, in a column the statement reads, refuses the statement only
// when the row can pass the scan's filter (the tables' pg_class rows
// have no reltype or relnatts; their indexes' rows do: a statement
// over the indexes was refused).
func TestCatalogUnknownFiltered(t *testing.T) {
	r := catalogRig(t)
	catalogCompare(t, r, []string{
		"SELECT relname, reltype, relnatts FROM pg_class WHERE relkind = 'i' AND relnamespace = 2200 ORDER BY 1",
		"SELECT c.relname, c.relnatts, c.relam FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid " +
			"WHERE c.relkind = 'i' AND c.relnamespace = 2200 AND i.indisunique ORDER BY 1",
		"SELECT relname FROM pg_class WHERE relnamespace = 2200 AND relkind = 'i' AND reltype = 0 ORDER BY 1",
	}, []string{
		// Rows of the tables pass these filters: their reltype is read.
		"SELECT relname, reltype FROM pg_class WHERE relnamespace = 2200 AND relkind IN ('i', 'r') ORDER BY 1",
		"SELECT relname, reltype FROM pg_class WHERE relnamespace = 2200 AND (relkind = 'i' OR relname = 'items') ORDER BY 1",
	})
}

// TestCatalogSequences: the followed tables' owned sequences (serial and
// identity columns) are in pg_class and pg_sequence as in PostgreSQL (a
// schema's relations were refused: they lacked items' sequence), and
// pg_attribute, which lacks their columns, is refused for them.
func TestCatalogSequences(t *testing.T) {
	r := catalogRig(t)
	seqClass := "SELECT c.relname, c.relkind, c.relnatts, c.relam, c.relpersistence, c.reloftype, c.reltablespace, c.reltoastrelid, c.relhasindex, " +
		"c.relisshared, c.relchecks, c.relhasrules, c.relhastriggers, c.relhassubclass, c.relrowsecurity, c.relforcerowsecurity, c.relispopulated, " +
		"c.relreplident, c.relispartition, c.relrewrite, c.reloptions, c.relpartbound, pg_get_userbyid(c.relowner), pg_table_is_visible(c.oid) FROM pg_class c "
	catalogCompare(t, r, []string{
		seqClass + "WHERE c.relname = 'items_id_seq'",
		seqClass + "WHERE c.relkind = 'S' AND c.relnamespace = 2200",
		"SELECT c.relname, s.seqtypid, s.seqstart, s.seqincrement, s.seqmax, s.seqmin, s.seqcache, s.seqcycle FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid ORDER BY 1",
		"SELECT c.oid = s.seqrelid FROM pg_class c, pg_sequence s WHERE c.relname = 'items_id_seq'",
		"SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' ORDER BY 1",
		"SELECT relname FROM pg_class WHERE relnamespace = 2200 ORDER BY 1",
		"SELECT relname, relkind FROM pg_class WHERE relnamespace = 2200 AND relkind IN ('r', 'S') ORDER BY 1",
	}, []string{
		"SELECT a.attname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid WHERE c.relname = 'items_id_seq' AND a.attnum > 0",
		"SELECT a.attname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid WHERE c.relkind = 'S' AND c.relnamespace = 2200",
		"SELECT count(*) FROM pg_description d JOIN pg_class c ON c.oid = d.objoid WHERE c.relname = 'items_id_seq'",
	})
}

// TestCatalogIdentitySequence: an identity column's sequence, with its
// own parameters, and a smallserial's, in pg_sequence, pg_class and
// psql's \d and \ds.
func TestCatalogIdentitySequence(t *testing.T) {
	seqClass := "SELECT c.relname, c.relkind, c.relnatts, c.relam, c.relpersistence, c.relowner = (SELECT relowner FROM pg_class WHERE relname = 'ids'), " +
		"pg_table_is_visible(c.oid) FROM pg_class c "
	r := newRig(t, []string{"public.ids"}, []string{
		"CREATE TABLE ids (id bigint GENERATED ALWAYS AS IDENTITY (START WITH 5 INCREMENT BY -3 MINVALUE -100 MAXVALUE 50 CACHE 7 CYCLE) PRIMARY KEY, n smallserial)",
		"INSERT INTO ids (n) VALUES (1)",
	})
	catalogCompare(t, r, []string{
		"SELECT c.relname, s.seqtypid, s.seqstart, s.seqincrement, s.seqmax, s.seqmin, s.seqcache, s.seqcycle FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid ORDER BY 1",
		seqClass + "WHERE c.relkind = 'S' AND c.relnamespace = 2200 ORDER BY 1",
	}, nil)
	psqlRig(r).same(t, `\d`, `\ds`)
}

// TestCatalogTypeRows: pg_type lists the types sidecar serves, not all of
// PostgreSQL's, so a pg_type scan is answered only when its rows are
// provably served types' (by OID, by name, through pg_attribute's
// followed columns) or rows no PostgreSQL has, and refused otherwise
// (`WHERE typname = 'int4range'` and `WHERE typtype = 'b'` answered
// fewer rows than PostgreSQL before).
func TestCatalogTypeRows(t *testing.T) {
	r := catalogRig(t)
	served := "'16', '17', '18', '19', '20', '21', '23', '25', '26', '114', '700', '701', '705', '1042', '1043', '1082', '1083', '1114', " +
		"'1184', '1186', '1700', '2950', '3802'"
	catalogCompare(t, r, []string{
		"SELECT oid, typname, typnamespace, typowner, typlen, typtype, typcategory, typispreferred, typisdefined, typdelim, typrelid, " +
			"typelem, typarray, typnotnull, typbasetype, typtypmod, typndims, typcollation, typbyval FROM pg_type WHERE oid IN (" + served + ") ORDER BY oid",
		"SELECT oid, typname, typlen, typbyval, typtype, typcategory, typelem, typarray, typcollation FROM pg_type " +
			"WHERE oid IN (SELECT typarray FROM pg_type WHERE oid IN (" + served + ")) ORDER BY 1",
		"SELECT typname FROM pg_type WHERE oid = 23",
		"SELECT oid FROM pg_type WHERE typname = 'int4'",
		"SELECT typname FROM pg_type WHERE typname IN ('int4', 'nosuchtype', '_text') ORDER BY 1",
		// psycopg2's hstore probe (SQLAlchemy's connect).
		"SELECT t.oid, typarray FROM pg_type t JOIN pg_namespace ns ON typnamespace = ns.oid WHERE typname = 'hstore'",
		"SELECT a.attname, t.typname, t.typcategory FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid " +
			"WHERE a.attrelid = 'items'::regclass AND a.attnum > 0 ORDER BY a.attnum",
		"SELECT a.attname, (SELECT typname FROM pg_type WHERE oid = a.atttypid) FROM pg_attribute a " +
			"WHERE a.attrelid = 'accounts'::regclass AND a.attnum > 0 ORDER BY 1",
		"SELECT a.attname, t.typname FROM pg_attribute a LEFT JOIN pg_type t ON t.oid = a.atttypid " +
			"WHERE a.attrelid = 'accounts'::regclass AND a.attnum > 0 ORDER BY 1",
		"SELECT e.typname, t.typname FROM pg_type t JOIN pg_type e ON e.oid = t.typelem WHERE t.typname = '_int4'",
		// oid IN integers (PostgreSQL casts them to oid; refused before).
		"SELECT typname FROM pg_type WHERE oid IN (16, 17) ORDER BY 1",
		// The network types (engine types since session 17): their rows
		// and arrays, refused before ("not a type sidecar serves").
		"SELECT oid, typname, typnamespace, typowner, typlen, typbyval, typtype, typcategory, typispreferred, typisdefined, typdelim, " +
			"typrelid, typelem, typarray, typinput, typoutput, typreceive, typsend, typnotnull, typbasetype, typtypmod, typndims, typcollation, typdefault " +
			"FROM pg_type WHERE oid IN (869, 650, 829, 774, 1041, 651, 1040, 775) ORDER BY 1",
		"SELECT format_type(869, NULL), format_type(1041, NULL), format_type(650, NULL), format_type(774, -1), format_type(829, NULL)",
		"SELECT typname FROM pg_type WHERE typname IN ('inet', 'cidr', '_inet', 'macaddr', 'macaddr8') ORDER BY 1",
		"SELECT typname FROM pg_type WHERE oid IN (16, 17::int2, 23::oid) ORDER BY 1",
		// format_type of information_schema's domains and their arrays
		// (refused before), qualified unless on the search path.
		"SELECT typname, format_type(oid, NULL), format_type(oid, -1), format_type(typarray, NULL) FROM pg_type WHERE typtype = 'd' ORDER BY 1",
		"SET search_path = information_schema, public; SELECT typname, format_type(oid, NULL), format_type(typarray, NULL) FROM pg_type WHERE typtype = 'd' ORDER BY 1",
		// SQLAlchemy's enums (no followed column has one).
		"SELECT t.typname, n.nspname, e.enumlabel FROM pg_catalog.pg_type t LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace " +
			"LEFT JOIN pg_catalog.pg_enum e ON t.oid = e.enumtypid WHERE t.typtype = 'e' ORDER BY 2, 1",
		// SQLAlchemy's domains: information_schema's, whose OIDs initdb
		// assigns (read at copy time).
		"SELECT t.typname as \"name\", pg_catalog.format_type(t.typbasetype, t.typtypmod) as \"attype\", not t.typnotnull as \"nullable\", " +
			"t.typdefault as \"default\", pg_catalog.pg_type_is_visible(t.oid) as \"visible\", n.nspname as \"schema\" " +
			"FROM pg_catalog.pg_type t LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace WHERE t.typtype = 'd' ORDER BY 1",
		"SELECT oid, typname, typnamespace, typlen, typbyval, typcategory, typelem, typarray, typbasetype, typtypmod, typcollation, typdefault " +
			"FROM pg_type WHERE typname IN ('cardinal_number', '_cardinal_number', 'time_stamp', 'yes_or_no') ORDER BY 2",
		// The range types (engine types since session 19).
		"SELECT oid FROM pg_type WHERE typname = 'int4range'",
		"SELECT typname FROM pg_type WHERE oid = 3904",
		// An OR of oid equalities reads as oid IN (…) (session 22:
		// refused before).
		"SELECT count(*) FROM pg_type WHERE oid = 3904 OR oid = 23",
	}, []string{
		"SELECT count(*) FROM pg_type WHERE typtype = 'b'",
		"SELECT count(*) FROM pg_type WHERE typcategory = 'N'",
		"SELECT typname FROM pg_type WHERE typname LIKE 'int%' ORDER BY 1",
		"SELECT count(*) FROM pg_type",
		"SELECT count(*) FROM pg_type WHERE typname = 'items'",
		"SELECT count(*) FROM pg_type WHERE typname = '_items'",
		// An OR of oid equalities reads as oid IN (…) (session 22): tid
		// is not served.
		"SELECT count(*) FROM pg_type WHERE oid = 27 OR oid = 23",
		"SELECT count(*) FROM pg_type WHERE typname IN ('int4', 'pg_class')",
		"SELECT count(*) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'pg_catalog'",
		// The system columns' types (tid, xid, cid) are not served.
		"SELECT a.attname, t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = 'items'::regclass ORDER BY a.attnum",
	})
}

// TestCatalogNamespaces: pg_namespace's OIDs and owners are the source's
// (read at copy time): information_schema's OID is initdb's, a user
// schema's CREATE SCHEMA's — sidecar numbered them itself before
// (13000, then 16384 up), so pg_class.relnamespace of a table outside
// public and pg_namespace.oid answered other numbers than PostgreSQL.
func TestCatalogNamespaces(t *testing.T) {
	r := newRig(t, []string{"s.things", "public.plain"}, []string{
		"CREATE SCHEMA other", "DROP SCHEMA other", "CREATE ROLE alice", "CREATE SCHEMA s AUTHORIZATION alice",
		"CREATE TABLE s.things (id int PRIMARY KEY, v text)", "CREATE TABLE plain (id int PRIMARY KEY)",
		"INSERT INTO s.things VALUES (1, 'a')", "INSERT INTO plain VALUES (1)",
	})
	catalogCompare(t, r, []string{
		"SELECT relnamespace FROM pg_class WHERE relname = 'things'",
		"SELECT oid, nspname, nspowner FROM pg_namespace WHERE nspname IN ('s', 'public', 'information_schema', 'pg_catalog', 'pg_toast') ORDER BY 2",
		"SELECT c.relname, n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname IN ('things', 'plain') ORDER BY 1",
		"SELECT relnamespace::regnamespace FROM pg_class WHERE relname = 'things'",
		"SELECT 's'::regnamespace::oid = (SELECT oid FROM pg_namespace WHERE nspname = 's')",
		// psql's \dn.
		"SELECT n.nspname AS \"Name\", pg_catalog.pg_get_userbyid(n.nspowner) AS \"Owner\" FROM pg_catalog.pg_namespace n " +
			"WHERE n.nspname !~ '^pg_' AND n.nspname <> 'information_schema' ORDER BY 1",
	}, nil)
	// \dn, and \d and \dt with a schema pattern (psql's COLLATE
	// pg_catalog.default: refused before), print what PostgreSQL prints.
	for _, cmd := range []string{`\dn`, `\d s.things`, `\dt s.*`, `\d+ s.things`, `\dt s.thi*`} {
		got, err := psql(t, r.sqlURL, "-c", cmd)
		want, werr := psql(t, r.pgURL, "-c", cmd)
		switch {
		case werr != nil:
			t.Fatalf("%s on PostgreSQL: %v\n%s", cmd, werr, want)
		case strings.HasPrefix(cmd, `\d+`) && err != nil && strings.Contains(got, "not supported by sidecar"):
			t.Logf("%s refused: %s", cmd, strings.TrimSpace(got))
		case err != nil || got != want:
			t.Errorf("%s: (%v)\n%s\nPostgreSQL:\n%s", cmd, err, got, want)
		}
	}
}

// psqlState is the SQLSTATE psql -v VERBOSITY=verbose printed ("" none).
func psqlState(out string) string {
	if i := strings.Index(out, "ERROR:  "); i >= 0 && len(out) >= i+13 {
		return out[i+8 : i+13]
	}
	return ""
}

// TestCatalogByMajor: catalog columns and rows that differ by major
// answer as the followed server's: pg_index.indnullsnotdistinct and
// pg_constraint.confdelsetcols do not exist on 14 (sidecar answered
// them), attndims/attinhcount/coninhcount are int2 from 16 (sidecar said
// int4), attcacheoff is gone on 18, relallfrozen/conenforced/conperiod
// are new on 18, "char"'s typcategory is 'S' on 14, lc_collate is not a
// setting from 16 and the database's datcollate before. Where PostgreSQL
// fails, sidecar must fail with its SQLSTATE; where it answers, sidecar
// answers the same or (the lists' second part) refuses 0A000.
func TestCatalogByMajor(t *testing.T) {
	r := catalogRig(t)
	run := func(url, q string) (string, error) {
		return psql(t, url, "-At", "-v", "VERBOSITY=verbose", "-c", q)
	}
	check := func(q string, mayRefuse bool) {
		want, werr := run(r.pgURL, q)
		got, err := run(r.sqlURL, q)
		switch {
		case werr != nil:
			if err == nil || psqlState(got) != psqlState(want) {
				t.Errorf("%s: PostgreSQL fails %q; sidecar %q (%v)", q, want, got, err)
			}
		case err == nil && got == want:
		case mayRefuse && err != nil && psqlState(got) == "0A000":
			t.Logf("%s refused: %s", q, strings.TrimSpace(got))
		default:
			t.Errorf("%s:\n  sidecar    %q (%v)\n  PostgreSQL %q", q, got, err, want)
		}
	}
	for _, q := range []string{
		"SELECT pg_typeof(attndims)::text, attndims, attcacheoff FROM pg_attribute WHERE attrelid = 'items'::regclass AND attnum = 1",
		"SELECT pg_typeof(coninhcount)::text, coninhcount FROM pg_constraint WHERE conrelid = 'items'::regclass AND contype = 'p'",
		"SELECT c.relname, i.indnullsnotdistinct FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'items'::regclass ORDER BY 1",
		"SELECT typname, typcategory FROM pg_type WHERE oid IN (18, 1002, 19, 25) ORDER BY 1",
		// Not a setting from 16 (42704); the database's datcollate on
		// 14 and 15 (sidecar answered "C" on every major).
		"SHOW lc_collate", "SELECT current_setting('lc_collate')",
	} {
		check(q, false)
	}
	for _, q := range []string{
		// 18's new columns: unknown (refused) there, 42703 before.
		"SELECT relallfrozen FROM pg_class WHERE oid = 'items'::regclass",
		"SELECT conenforced, conperiod FROM pg_constraint WHERE conrelid = 'items'::regclass AND contype = 'p'",
		"SELECT * FROM pg_index WHERE indrelid = 'accounts'::regclass ORDER BY indexrelid",
		"SELECT confdelsetcols FROM pg_constraint WHERE conrelid = 'items'::regclass AND contype = 'f'",
		"SELECT attstattarget FROM pg_attribute WHERE attrelid = 'items'::regclass AND attnum = 1",
		// No row from 16 (refused: pg_settings is read by the names it
		// lists), the database's datcollate before.
		"SELECT setting FROM pg_settings WHERE name = 'lc_collate'",
		// System columns: PostgreSQL has them (psql's \dd reads
		// pg_class.tableoid): a catalog's tableoid answers (session 19),
		// a table's are refused 0A000 (was 42703).
		"SELECT c.tableoid, c.relname FROM pg_class c WHERE c.oid = 'items'::regclass",
		"SELECT ctid, id FROM items WHERE id = 1",
	} {
		check(q, true)
	}
}

// TestCatalogAntiJoinReach: a NOT EXISTS over catalog relations joined in
// FROM, which sql/opt moves onto the one relation its condition reads
// (semipush.go: an anti join on pg_attribute, pg_class, pg_index under
// the inner join that restricts it to user objects), is answered as
// PostgreSQL answers: the reach proof gives the anti join's left side
// the conditions above it (pgcatalog_reach.go). EXPLAIN shows the anti
// join under the inner join.
func TestCatalogAntiJoinReach(t *testing.T) {
	r := catalogRig(t)
	same := []string{
		"SELECT a.attname, c.relname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname IN ('accounts', 'items') " +
			"AND a.attnum > 0 AND NOT EXISTS (SELECT 1 FROM pg_attrdef d WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum) ORDER BY 1, 2",
		"SELECT c.relname FROM pg_class c, pg_namespace n WHERE n.oid = c.relnamespace AND n.nspname = 'public' AND c.relkind IN ('r', 'v') " +
			"AND NOT EXISTS (SELECT 1 FROM pg_description d WHERE d.objoid = c.oid AND d.objsubid = 0) ORDER BY 1",
		"SELECT i.relname, c.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid " +
			"WHERE c.relname = 'items' AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid) ORDER BY 1",
	}
	catalogCompare(t, r, same, nil)
	for _, q := range same {
		plan, err := psql(t, r.sqlURL, "-At", "-c", "EXPLAIN "+q)
		if err != nil {
			t.Fatalf("EXPLAIN %s: %v\n%s", q, err, plan)
		}
		anti, inner := strings.Index(plan, "Anti Join"), strings.Index(plan, "Inner Join")
		if anti < 0 || inner < 0 || anti < inner {
			t.Errorf("%s: want the anti join under an inner join:\n%s", q, plan)
		}
	}
}
