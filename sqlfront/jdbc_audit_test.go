package sqlfront_test

import (
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// jdbcAuditRig follows tables of varied column types (a NOT NULL
// domain, an enum), defaults, NOT NULL, unique and foreign keys across
// schemas, comments, a quoted mixed-case schema and table, a view and
// a materialized view: what pgjdbc's DatabaseMetaData describes.
func jdbcAuditRig(t *testing.T) *rig {
	return newRig(t, []string{"public.t_types", "public.parent", "s2.child", `'"Mixed Schema"."Mixed Case"'`}, []string{
		"CREATE SCHEMA s2", `CREATE SCHEMA "Mixed Schema"`,
		"CREATE DOMAIN posint AS int NOT NULL CHECK (VALUE > 0)", "CREATE DOMAIN short AS varchar(10)", "CREATE TYPE mood AS ENUM ('sad', 'ok')",
		"CREATE TABLE t_types (id bigint PRIMARY KEY, n_ int NOT NULL DEFAULT 7, s text UNIQUE, v varchar(30), c char(4), num numeric(10,3), " +
			"num2 numeric, f4 real, f8 double precision, b bool DEFAULT true, d date, ts timestamp(3), tstz timestamptz DEFAULT now(), iv interval, " +
			"u uuid, j jsonb, by bytea, arr int[], tarr text[], sm smallint, ser serial, tm time, ip inet, dom posint DEFAULT 1, sh short, mo mood)",
		"COMMENT ON TABLE t_types IS 'all the types'", "COMMENT ON COLUMN t_types.v IS 'a varchar'",
		"CREATE TABLE parent (id int PRIMARY KEY, code text UNIQUE NOT NULL)",
		"CREATE TABLE s2.child (id int PRIMARY KEY, pid int REFERENCES parent ON DELETE CASCADE, code text CONSTRAINT child_code_fk REFERENCES parent (code))",
		`CREATE TABLE "Mixed Schema"."Mixed Case" ("Id" int PRIMARY KEY, "Val" text NOT NULL, "lower" int REFERENCES parent)`,
		`COMMENT ON TABLE "Mixed Schema"."Mixed Case" IS 'mixed'`,
		"CREATE VIEW v_parent AS SELECT id, code FROM parent", "COMMENT ON VIEW v_parent IS 'the parents'",
		"CREATE MATERIALIZED VIEW v_mat AS SELECT id FROM parent",
		"INSERT INTO parent VALUES (1, 'a')",
	})
}

// jdbcAuditPartitionedRig follows a partition whose partitioned table
// pg_class lists above it.
func jdbcAuditPartitionedRig(t *testing.T) *rig {
	return newRig(t, []string{"public.parted", "public.t_types"}, []string{
		"CREATE TABLE t_types (id int PRIMARY KEY)",
		"CREATE TABLE parted (id int NOT NULL, k int NOT NULL, PRIMARY KEY (id, k)) PARTITION BY LIST (k)",
		"CREATE TABLE parted_1 PARTITION OF parted FOR VALUES IN (1)",
	})
}

// TestJDBCMetaDataAudit: every DatabaseMetaData call pgjdbc makes
// (testdata/jdbc/Audit.java), every column of every row and the
// result's ResultSetMetaData (names, types, origins' table and schema,
// nullability, auto-increment), answered by sidecar as by PostgreSQL or
// refused 0A000. JDBC_AUDIT_DUMP=<dir> writes both sides' answers.
func TestJDBCMetaDataAudit(t *testing.T) {
	src, err := os.ReadFile("testdata/jdbc/Audit.java")
	if err != nil {
		t.Fatal(err)
	}
	audit := javaProgram(t, "Audit", string(src))
	// Calls that must answer as PostgreSQL, not be refused (the tables
	// rig): the ResultSetMetaData of getSchemas', getFunctions' and
	// getProcedures' results was refused before (catalog_jdbc_fieldmeta.go).
	// getColumns of t_types stays refused: pgjdbc looks up the domain's
	// and the enum's typinput, which sidecar does not know.
	mustAnswer := []string{"getColumns(public,t_types,id)", "getColumns(Mixed%,Mixed Case)", "getTables(public,%,TABLE/VIEW)",
		"getTables(null,%,TABLE,PARTITIONED TABLE)", "getPrimaryKeys(public,t_types)", "getImportedKeys(s2,%)", "getExportedKeys(public,%)",
		"getCrossReference", "getSchemas()", "getSchemas(null,s%)", "getFunctions(public,%)", "getProcedures(public,%)", "getCatalogs", "getTableTypes",
		// Session 22: getBestRowIdentifier (catalog_jdbc_bestrow.go).
		"getBestRowIdentifier(public,t_types)", "getBestRowIdentifier(null,Mixed Case)", "getBestRowIdentifier(s2,%)",
		// Session 23: pg_type's rows as read by the poll (catalog_jdbc_typeinfo.go).
		"getTypeInfo", "getUDTs(null,null,null,null)", "getUDTs(public,%)", "getUDTs(public,%,STRUCT)", "getUDTs(public,%,DISTINCT)",
		"getVersionColumns(public,t_types)", "getVersionColumns(null,%)", "getVersionColumns(Mixed%,Mixed Case)"}
	// The partitioned rig's: the foreign-key calls were refused once a
	// followed table was a partition (pgcatalog_reach_partfk.go).
	mustAnswerPartitioned := []string{"getImportedKeys(public,%)", "getImportedKeys(null,parted%)", "getExportedKeys(public,%)", "getExportedKeys(null,t_types)",
		"getBestRowIdentifier(public,t_types)", "getBestRowIdentifier(null,parted%)", "getTypeInfo", "getUDTs(null,null,null,null)", "getVersionColumns(null,parted%)"}
	for name, mk := range map[string]func(*testing.T) *rig{"tables": jdbcAuditRig, "partitioned": jdbcAuditPartitionedRig} {
		t.Run(name, func(t *testing.T) {
			r := mk(t)
			pgAddr := strings.TrimPrefix(r.pgURL, "postgres://postgres@")
			// sidecar under the source database's name (getCatalogs, the
			// catalog argument of getSchemas).
			u, err := url.Parse(r.pgURL)
			if err != nil {
				t.Fatal(err)
			}
			db := strings.TrimPrefix(u.Path, "/")
			got := jdbcCalls(audit("jdbc:postgresql://"+r.addr+"/"+db+"?sslmode=disable", "app", db))
			want := jdbcCalls(audit("jdbc:postgresql://"+pgAddr, "postgres", db))
			if d := os.Getenv("JDBC_AUDIT_DUMP"); d != "" {
				jdbcAuditDump(t, filepath.Join(d, name), got, want)
			}
			same, refused := 0, 0
			for k, w := range want {
				g := got[k]
				switch {
				case g == w:
					same++
				case strings.HasPrefix(g, "ERR 0A000"):
					refused++
					t.Logf("%s refused: %s", k, strings.TrimSpace(g))
				default:
					t.Errorf("%s:\nsidecar:\n%sPostgreSQL:\n%s", k, g, w)
				}
			}
			t.Logf("%s: %d calls, %d answered as PostgreSQL, %d refused 0A000", name, len(want), same, refused)
			must := mustAnswer
			if name == "partitioned" {
				must = mustAnswerPartitioned
			}
			for _, k := range must {
				if want[k] == "" || got[k] != want[k] {
					t.Errorf("%s: not answered as PostgreSQL:\nsidecar:\n%sPostgreSQL:\n%s", k, got[k], want[k])
				}
			}
			if len(want) == 0 || same == 0 {
				t.Errorf("%d calls, %d answered as PostgreSQL", len(want), same)
			}
		})
	}
}

// jdbcAuditDump writes both sides' answers under dir.
func jdbcAuditDump(t *testing.T, dir string, got, want map[string]string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, calls := range map[string]map[string]string{"sidecar": got, "pg": want} {
		keys := make([]string, 0, len(calls))
		for k := range calls {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			b.WriteString("== " + k + "\n" + calls[k])
		}
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// jdbcCalls splits the Audit program's output into each call's answer.
func jdbcCalls(out string) map[string]string {
	m := map[string]string{}
	for _, part := range strings.Split(out, "== ")[1:] {
		name, body, _ := strings.Cut(part, "\n")
		m[name] = body
	}
	return m
}
