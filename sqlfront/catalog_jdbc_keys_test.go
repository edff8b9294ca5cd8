package sqlfront_test

import (
	"strings"
	"testing"
)

// jdbcKeysSQL is pgjdbc 42.x's getImportedExportedKeys query (against a
// server of 11 or later, max_index_keys 32) for the tables named ("":
// no condition), as PgDatabaseMetaData writes it.
func jdbcKeysSQL(pkSchema, pkTable, fkSchema, fkTable string) string {
	q := "SELECT NULL::text AS PKTABLE_CAT, pkn.nspname AS PKTABLE_SCHEM, pkc.relname AS PKTABLE_NAME, pka.attname AS PKCOLUMN_NAME, " +
		"NULL::text AS FKTABLE_CAT, fkn.nspname AS FKTABLE_SCHEM, fkc.relname AS FKTABLE_NAME, fka.attname AS FKCOLUMN_NAME, pos.n AS KEY_SEQ, " +
		"CASE con.confupdtype  WHEN 'c' THEN 0 WHEN 'n' THEN 2 WHEN 'd' THEN 4 WHEN 'r' THEN 1 WHEN 'p' THEN 1 WHEN 'a' THEN 3 ELSE NULL END AS UPDATE_RULE, " +
		"CASE con.confdeltype  WHEN 'c' THEN 0 WHEN 'n' THEN 2 WHEN 'd' THEN 4 WHEN 'r' THEN 1 WHEN 'p' THEN 1 WHEN 'a' THEN 3 ELSE NULL END AS DELETE_RULE, " +
		"con.conname AS FK_NAME, pkic.relname AS PK_NAME, CASE  WHEN con.condeferrable AND con.condeferred THEN 5 WHEN con.condeferrable THEN 6 ELSE 7 END AS DEFERRABILITY " +
		" FROM  pg_catalog.pg_namespace pkn, pg_catalog.pg_class pkc, pg_catalog.pg_attribute pka,  pg_catalog.pg_namespace fkn, pg_catalog.pg_class fkc, " +
		"pg_catalog.pg_attribute fka,  pg_catalog.pg_constraint con,  pg_catalog.generate_series(1, 32) pos(n),  pg_catalog.pg_class pkic" +
		" WHERE pkn.oid = pkc.relnamespace AND pkc.oid = pka.attrelid AND pka.attnum = con.confkey[pos.n] AND con.confrelid = pkc.oid " +
		" AND fkn.oid = fkc.relnamespace AND fkc.oid = fka.attrelid AND fka.attnum = con.conkey[pos.n] AND con.conrelid = fkc.oid " +
		" AND con.contype = 'f' AND (pkic.relkind = 'i' OR pkic.relkind = 'I') AND pkic.oid = con.conindid "
	for _, c := range [][2]string{{"pkn.nspname", pkSchema}, {"fkn.nspname", fkSchema}, {"pkc.relname", pkTable}, {"fkc.relname", fkTable}} {
		if c[1] != "" {
			q += " AND " + c[0] + " = '" + strings.ReplaceAll(c[1], "'", "''") + "'"
		}
	}
	if pkTable != "" {
		return q + " ORDER BY fkn.nspname,fkc.relname,con.conname,pos.n"
	}
	return q + " ORDER BY pkn.nspname,pkc.relname, con.conname,pos.n"
}

// TestJDBCKeysPartitioned (issue 23): pgjdbc's getImportedKeys,
// getExportedKeys and getCrossReference answer as PostgreSQL once a
// followed table is a partition whose partitioned table pg_class lists
// (they were refused: the catalog reach proof could not read
// `pkic.relkind = 'i' OR pkic.relkind = 'I'` nor prove pg_constraint's
// foreign-key rows joined to pg_class rows that may be partitioned
// tables'). A foreign key of a partitioned table above a followed
// partition, or one referencing it, keeps them refused: pg_constraint
// and pg_attribute lack those rows.
func TestJDBCKeysPartitioned(t *testing.T) {
	calls := []string{
		jdbcKeysSQL("", "", "public", "child"), jdbcKeysSQL("", "", "s2", "kid"), jdbcKeysSQL("public", "parent", "", ""),
		jdbcKeysSQL("public", "parent", "s2", "kid"), jdbcKeysSQL("", "", "public", "parted_1"), jdbcKeysSQL("", "", "public", "%"),
		jdbcKeysSQL("", "", "public", ""), jdbcKeysSQL("public", "", "", ""),
		// The columns of the relations of kinds 'r' or 'f' (tables).
		"SELECT c.relname, a.attname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid JOIN pg_namespace n ON n.oid = c.relnamespace " +
			"WHERE (c.relkind = 'r' OR c.relkind = 'f') AND n.nspname = 'public' AND a.attnum > 0 ORDER BY 1, 2",
	}
	tables := []string{"public.parent", "public.child", "s2.kid", "public.parted"}
	setup := []string{
		"CREATE SCHEMA s2",
		"CREATE TABLE parent (id int PRIMARY KEY, code text UNIQUE NOT NULL)",
		"CREATE TABLE child (id int PRIMARY KEY, pid int REFERENCES parent ON DELETE CASCADE)",
		"CREATE TABLE s2.kid (id int PRIMARY KEY, code text CONSTRAINT kid_code_fk REFERENCES parent (code) DEFERRABLE)",
		"CREATE TABLE parted (id int NOT NULL, k int NOT NULL, PRIMARY KEY (id, k)) PARTITION BY LIST (k)",
		"CREATE TABLE parted_1 PARTITION OF parted FOR VALUES IN (1)",
	}
	t.Run("answered", func(t *testing.T) {
		catalogCompare(t, newRig(t, tables, setup), calls, nil)
	})
	t.Run("partitioned foreign key", func(t *testing.T) {
		// parted's foreign key (cloned onto parted_1): PostgreSQL lists
		// it for parted too.
		r := newRig(t, tables, append(append([]string{}, setup[:4]...),
			"CREATE TABLE parted (id int NOT NULL, k int NOT NULL, pid int REFERENCES parent, PRIMARY KEY (id, k)) PARTITION BY LIST (k)", setup[5]))
		catalogCompare(t, r, calls[len(calls)-1:], calls[:len(calls)-1])
	})
	t.Run("unfollowed table with a foreign key", func(t *testing.T) {
		// loose is not followed: its foreign key to parent is not in
		// sidecar's pg_constraint, so parent's exported keys are
		// PostgreSQL's answer or 0A000, never the list without it (the
		// partitioned tables' proof above once held for every relation
		// pg_class lists alone).
		r := newRig(t, tables, append(append([]string{}, setup...), "CREATE TABLE loose (id int PRIMARY KEY, pid int REFERENCES parent)"))
		if want, err := psql(t, r.pgURL, "-At", "-c", jdbcKeysSQL("public", "parent", "", "")); err != nil || !strings.Contains(want, "loose") {
			t.Fatalf("PostgreSQL's exported keys of parent lack loose's: %q (%v)", want, err)
		}
		psqlRig(r).withArgs("-At").orRefused().same(t, calls...)
	})
	t.Run("references partitioned", func(t *testing.T) {
		// child references parted: pg_attribute lacks parted's columns.
		r := newRig(t, tables, append(append([]string{}, setup[:2]...), setup[4], setup[5],
			"CREATE TABLE child (id int PRIMARY KEY, pid int REFERENCES parent ON DELETE CASCADE, pk int, FOREIGN KEY (id, pk) REFERENCES parted)", setup[3]))
		catalogCompare(t, r, calls[len(calls)-1:], []string{jdbcKeysSQL("", "", "public", "child"), jdbcKeysSQL("public", "", "", "")})
	})
}
