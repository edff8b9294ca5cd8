package sqlfront_test

import "testing"

// TestCatalogRegTypes: regclass, regtype and regnamespace read and print
// the names of sidecar's catalog as PostgreSQL does (casts from text and
// to text, oid and the integers, comparisons with oid columns, result
// columns printed as names, SQLAlchemy's get_columns identity subquery),
// and refuse the names and OIDs of PostgreSQL's own objects.
func TestCatalogRegTypes(t *testing.T) {
	r := catalogRig(t)
	catalogCompare(t, r, []string{
		"SELECT 'items'::regclass",
		"SELECT 'public'::regnamespace::oid",
		"SELECT pg_typeof(1), pg_typeof('a'::text), pg_typeof(1.5), pg_typeof(NULL::int8), pg_typeof('x'), pg_typeof(now()), pg_typeof('items'::regclass)",
		"SELECT pg_typeof(id), pg_typeof(name), pg_typeof(qty * 2.0) FROM items LIMIT 1",
		"SELECT pg_typeof(1)::text = 'integer', pg_typeof(1)::oid",
		"SELECT typname, pg_type_is_visible(oid) FROM pg_type WHERE typname IN ('int4', 'text', 'varchar') ORDER BY 1",
		"SELECT (SELECT oid FROM pg_namespace WHERE nspname = 'public')",
		"SELECT 2200::oid = (SELECT oid FROM pg_namespace WHERE nspname = 'public')",
		"SELECT 'public.items'::regclass, 'ITEMS'::regclass::text, '\"items\"'::regclass::oid = (SELECT oid FROM pg_class WHERE relname = 'items')",
		"SELECT relname FROM pg_class WHERE oid = 'accounts'::regclass",
		"SELECT c.relname FROM pg_class c WHERE c.oid = 'public.items'::pg_catalog.regclass",
		"SELECT attname FROM pg_attribute WHERE attrelid = 'items'::regclass AND attnum > 0 ORDER BY attnum",
		"SELECT attrelid::regclass, attname FROM pg_attribute WHERE attrelid = 'accounts'::regclass AND attnum > 0 ORDER BY attnum",
		"SELECT oid::regclass::text, relname FROM pg_class WHERE relname IN ('items', 'items_key', 'items_id_seq') ORDER BY 2",
		"SELECT indexrelid::regclass, indrelid::regclass FROM pg_index WHERE indrelid = 'items'::regclass ORDER BY 1",
		"SELECT conname, conrelid::regclass, confrelid::regclass FROM pg_constraint WHERE conrelid = 'items'::regclass AND contype = 'f'",
		"SELECT pg_get_serial_sequence('items', 'id')::regclass",
		"SELECT pg_get_serial_sequence('items', 'id')::regclass::oid = (SELECT oid FROM pg_class WHERE relname = 'items_id_seq')",
		"SELECT 'items'::regclass::oid::int8 = (SELECT oid::int8 FROM pg_class WHERE relname = 'items')",
		"SELECT '-'::regclass, '-'::regclass::oid, 0::regclass",
		"SELECT atttypid::regtype, attname FROM pg_attribute WHERE attrelid = 'items'::regclass AND attnum > 0 ORDER BY attnum",
		"SELECT 'integer'::regtype, 'int8'::regtype::oid, 'character varying'::regtype::text, 'timestamptz'::regtype",
		"SELECT relnamespace::regnamespace, relname FROM pg_class WHERE relname = 'items'",
		"SELECT 'public'::regnamespace::oid = (SELECT oid FROM pg_namespace WHERE nspname = 'public')",
		`SELECT a.attname, (SELECT json_build_object('always', a.attidentity = 'a', 'start', s.seqstart)
		  FROM pg_catalog.pg_sequence s JOIN pg_catalog.pg_class c on s.seqrelid = c."oid"
		  WHERE c.relkind = 'S' AND a.attidentity != '' AND s.seqrelid = pg_catalog.pg_get_serial_sequence(a.attrelid::regclass::text, a.attname)::regclass::oid) AS identity_options
		  FROM pg_catalog.pg_attribute a WHERE a.attrelid = 'items'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
		// A system catalog's fixed OID (Metabase's classoid = 'pg_class'::regclass).
		"SELECT 'pg_catalog.pg_type'::regclass::oid, 'pg_class'::regclass::oid",
	}, []string{
		"SELECT 'pg_class'::regclass",
		"SELECT 1259::regclass",
		"SELECT 'now'::regproc",
		"SELECT conname FROM pg_constraint WHERE contype = 'f'",
	})
	// PostgreSQL's errors, the same SQLSTATE.
	for _, q := range []string{"SELECT 'nosuch'::regclass", "SELECT 'public.nosuch'::regclass", "SELECT 'a b'::regclass"} {
		got, err := psql(t, r.sqlURL, "-At", "-v", "VERBOSITY=verbose", "-c", q)
		want, werr := psql(t, r.pgURL, "-At", "-v", "VERBOSITY=verbose", "-c", q)
		if err == nil || werr == nil || firstLine(got) != firstLine(want) {
			t.Errorf("%s:\n  sidecar    %q\n  PostgreSQL %q", q, got, want)
		}
	}
}

func firstLine(s string) string {
	for i := range len(s) {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
