package replication

import "testing"

// TestReadColumnBases: the copy records each column's base type and
// typmod as PostgreSQL's RowDescription describes the column
// (getBaseTypeAndTypmod): a domain's base type under every domain, with
// the innermost domain's typmod (varchar(10): 14, numeric(10,2):
// 655366), a domain over an enum the enum, any other column its own type
// and typmod.
func TestReadColumnBases(t *testing.T) {
	conn := sqlConn(t, pg.NewDB(t))
	mustExec(t, conn,
		`CREATE DOMAIN posint AS int CHECK (VALUE > 0)`,
		`CREATE DOMAIN pp AS posint`,
		`CREATE DOMAIN v10 AS varchar(10)`,
		`CREATE DOMAIN vv AS v10`,
		`CREATE DOMAIN n102 AS numeric(10,2)`,
		`CREATE TYPE mood AS ENUM ('a', 'b')`,
		`CREATE DOMAIN md AS mood`,
		`CREATE TABLE cb (id int PRIMARY KEY, p posint, q pp, v vv, n n102, m md, c varchar(5), ia int[])`)
	var moodOID uint32
	if err := conn.QueryRow(t.Context(), `SELECT 'mood'::regtype::oid`).Scan(&moodOID); err != nil {
		t.Fatal(err)
	}
	rel := relationOf(t, conn, "cb")
	want := []struct {
		base uint32
		mod  int32
	}{{23, -1}, {23, -1}, {23, -1}, {1043, 14}, {1700, 655366}, {moodOID, -1}, {1043, 9}, {1007, -1}}
	if len(rel.Facts.ColumnTypes) != len(want) {
		t.Fatalf("column types %+v", rel.Facts.ColumnTypes)
	}
	for i, w := range want {
		if c := rel.Facts.ColumnTypes[i]; c.BaseType != w.base || c.BaseMod != w.mod {
			t.Errorf("column %s: base %d (%d), want %d (%d)", rel.Columns[i].Name, c.BaseType, c.BaseMod, w.base, w.mod)
		}
	}
}
