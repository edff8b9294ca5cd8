package replication

import (
	"slices"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestReadGeneratedColumns: the copy reads the attnums of the columns it
// carries (gaps where a column was dropped) and, for each generated
// column the stream does not carry, its attnum, type, typmod, collation,
// NOT NULL, generation expression (pg_get_expr, plain and pretty),
// comment and storage, so the SQL port's catalog lists the table as
// PostgreSQL does.
func TestReadGeneratedColumns(t *testing.T) {
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	ctx := t.Context()
	for _, s := range []string{
		"CREATE TABLE inc (id int PRIMARY KEY, gone int, opened timestamptz NOT NULL, closed timestamptz, " +
			"dur interval GENERATED ALWAYS AS (closed - opened) STORED NOT NULL, sev int, " +
			`label varchar(12) COLLATE "C" GENERATED ALWAYS AS ('sev ' || sev::text) STORED)`,
		"ALTER TABLE inc DROP COLUMN gone",
		"COMMENT ON COLUMN inc.dur IS 'how long'",
		"ALTER TABLE inc ALTER COLUMN label SET STATISTICS 50",
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	rel := relationOf(t, conn, "inc")
	f := rel.Facts
	if !slices.Equal(f.NotCarried, []string{"dur", "label"}) {
		t.Fatalf("not carried %v", f.NotCarried)
	}
	if !f.ColumnNumbersRead() || !slices.Equal(f.AttNums, []int16{1, 3, 4, 6}) {
		t.Errorf("attnums %v of %d columns, want 1 3 4 6", f.AttNums, len(rel.Columns))
	}
	if f.RelNatts() != 7 || !slices.Equal(f.Dropped, []wal.DroppedColumn{{AttNum: 2, Len: 4, TypeMod: -1}}) {
		t.Errorf("relnatts %d, dropped %+v; want 7, attnum 2 of an int", f.RelNatts(), f.Dropped)
	}
	want := []wal.NotCarriedColumn{
		{Name: "dur", AttNum: 5, TypeOID: 1186, TypeMod: -1, TypeName: "interval", NotNull: true, Generated: 's',
			Expr: "(closed - opened)", ExprPretty: "closed - opened", Comment: "how long", Storage: "p"},
		{Name: "label", AttNum: 7, TypeOID: 1043, TypeMod: 16, TypeName: "varchar", Generated: 's',
			Expr: "('sev '::text || (sev)::text)", ExprPretty: "(('sev '::text || sev::text))", Storage: "x", StatTarget: "50"},
	}
	got := slices.Clone(f.NotCarriedColumns)
	if len(got) == 2 {
		if got[1].Collation.Name != "C" || got[1].Collation.Order != wal.CollBytes || got[0].Collation != (wal.Collation{}) {
			t.Errorf("collations %+v, %+v", got[0].Collation, got[1].Collation)
		}
		got[1].Collation = wal.Collation{}
		if got[1].Compression != "" && got[1].Compression != "\x00" { // attcompression: '' unless set
			t.Errorf("label's compression %q", got[1].Compression)
		}
		got[1].Compression, got[0].Compression = "", ""
	}
	if !slices.Equal(got, want) {
		t.Errorf("generated columns\n%+v\nwant\n%+v", got, want)
	}
}
