package replication

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/wal"
)

// collationExists reports whether the server has collation name (for the
// database's encoding).
func collationExists(t *testing.T, conn *pgx.Conn, name string) bool {
	t.Helper()
	var ok bool
	err := conn.QueryRow(t.Context(), `SELECT EXISTS (SELECT FROM pg_collation WHERE collname = $1
		AND collencoding IN (-1, (SELECT encoding FROM pg_database WHERE datname = current_database())))`, name).Scan(&ok)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// relationOf describes table as a copy would, with its catalog facts.
func relationOf(t *testing.T, conn *pgx.Conn, table string) *wal.Relation {
	t.Helper()
	ts, err := describeCopy(t.Context(), conn, wal.TableName{Schema: "public", Name: table}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 {
		t.Fatalf("%s: %d copy tables", table, len(ts))
	}
	return ts[0].rel
}

// TestReadFactsCollations: the copy classifies each column's collation
// (byte order, another order, nondeterministic) and the database default
// on every major's catalogs, and reads a table's inheritance descendants.
func TestReadFactsCollations(t *testing.T) {
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	ctx := t.Context()
	want := map[string]wal.CollOrder{"c": wal.CollBytes, "posix": wal.CollBytes, "ucs": wal.CollBytes, "dflt": wal.CollBytes, "n": wal.CollUnknown}
	cols := []string{`id int PRIMARY KEY`, `c text COLLATE "C"`, `posix varchar(5) COLLATE "POSIX"`, `ucs text COLLATE "ucs_basic"`, `dflt text`, `n int`}
	if collationExists(t, conn, "C.utf8") {
		cols, want["cutf"] = append(cols, `cutf text COLLATE "C.utf8"`), wal.CollBytes
	}
	if collationExists(t, conn, "pg_c_utf8") { // 17+: the builtin provider
		cols, want["builtin"] = append(cols, `builtin text COLLATE "pg_c_utf8"`), wal.CollBytes
	}
	if collationExists(t, conn, "en-x-icu") {
		if _, err := conn.Exec(ctx, `CREATE COLLATION nd (provider = icu, locale = 'und-u-ks-level2', deterministic = false)`); err != nil {
			t.Fatal(err)
		}
		cols, want["icu"], want["nd"] = append(cols, `icu text COLLATE "en-x-icu"`, `nd text COLLATE nd`), wal.CollOther, wal.CollNondeterministic
	}
	stmts := []string{"CREATE TABLE ft (" + strings.Join(cols, ", ") + ")",
		"CREATE TABLE kid (x int) INHERITS (ft)", "CREATE TABLE grandkid () INHERITS (kid)"}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	rel := relationOf(t, conn, "ft")
	for _, c := range rel.Columns {
		if c.Collation.Order != want[c.Name] {
			t.Errorf("column %s: collation %+v, want order %d", c.Name, c.Collation, want[c.Name])
		}
	}
	f := rel.Facts
	if f == nil || f.Kind != 'r' || f.Default.Order != wal.CollBytes || f.Default.Name != "default" {
		t.Fatalf("facts %+v: want an ordinary table under a C default", f)
	}
	wantDesc := []wal.Descendant{{Name: "public.grandkid", Parent: "public.kid", Kind: 'r'}, {Name: "public.kid", Parent: "public.ft", Kind: 'r'}}
	if !slices.Equal(f.Descendants, wantDesc) {
		t.Errorf("descendants %+v, want %+v", f.Descendants, wantDesc)
	}
	if d := relationOf(t, conn, "grandkid").Facts.Descendants; len(d) != 0 {
		t.Errorf("grandkid's descendants %+v, want none", d)
	}
	// A partitioned table followed as its partitions: each names its root.
	for _, s := range []string{"CREATE TABLE meas (id int, k int, PRIMARY KEY (id, k)) PARTITION BY LIST (k)",
		"CREATE TABLE meas_1 PARTITION OF meas FOR VALUES IN (1)", "CREATE TABLE meas_2 PARTITION OF meas FOR VALUES IN (2)"} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	leaves, err := describeCopy(ctx, conn, wal.TableName{Schema: "public", Name: "meas"}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaves {
		if l.rel.Facts == nil || l.rel.Facts.PartitionOf != "public.meas" || l.rel.Facts.Kind != 'r' {
			t.Errorf("partition %s: facts %+v, want a table partition of public.meas", l.rel.Name, l.rel.Facts)
		}
	}
	root, err := describeCopy(ctx, conn, wal.TableName{Schema: "public", Name: "meas"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if f := root[0].rel.Facts; len(root) != 1 || f.Kind != 'p' || f.PartitionOf != "" || len(f.Descendants) != 0 {
		t.Errorf("meas followed as its root: facts %+v, want a partitioned table without descendants", f)
	}
}

// TestReadFactsICUDefault: a database whose default collation is ICU
// (15+) is read as another order than bytes, so comparisons of its
// default-collated text are refused.
func TestReadFactsICUDefault(t *testing.T) {
	if pg.ServerVersion() < 150000 {
		t.Skip("the ICU locale provider for a database's default is PostgreSQL 15+")
	}
	conn := sqlConn(t, pg.URL("postgres"))
	if !collationExists(t, conn, "en-x-icu") {
		t.Skip("the server has no ICU")
	}
	ctx := t.Context()
	name := fmt.Sprintf("icu_default_%d", rand.Uint32())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en' LOCALE 'C' ENCODING 'UTF8'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pg.DropDB(context.Background(), name); err != nil {
			t.Error(err)
		}
	})
	db := sqlConn(t, pg.URL(name))
	if _, err := db.Exec(ctx, `CREATE TABLE d (id int PRIMARY KEY, s text, c text COLLATE "C")`); err != nil {
		t.Fatal(err)
	}
	rel := relationOf(t, db, "d")
	if def := rel.Facts.Default; def.Order != wal.CollOther || !strings.Contains(def.Locale, "icu en") {
		t.Errorf("default %+v: want another order, icu en", def)
	}
	if s := rel.Columns[1].Collation; s.Name != "default" || s.Order != wal.CollOther {
		t.Errorf("column s: %+v, want the ICU default", s)
	}
	if c := rel.Columns[2].Collation; c.Order != wal.CollBytes {
		t.Errorf("column c: %+v, want byte order", c)
	}
}

// TestByteOrderCollationsAreBytes is the differential proof behind
// collOrder: on this server, every collation sidecar takes for byte order
// (C.utf8 of glibc, pg_c_utf8 of 17+, ucs_basic) sorts seeded random
// strings over every UTF-8 length exactly as COLLATE "C" (memcmp) does.
func TestByteOrderCollationsAreBytes(t *testing.T) {
	conn := sqlConn(t, pg.NewDB(t))
	r := rand.New(rand.NewPCG(seed.Or(t, seedFlag, 21_12), 12))
	ranges := [][2]rune{{0x20, 0x7f}, {0x41, 0x5b}, {0x61, 0x7b}, {0xa0, 0x250}, {0x370, 0x530}, {0x3040, 0x30ff}, {0x4e00, 0x4fff}, {0xac00, 0xad00}, {0x1f300, 0x1f650}, {0xfb00, 0xfb07}, {0x1e00, 0x1f00}}
	words := make([]string, 5000)
	for i := range words {
		var b strings.Builder
		for n := r.IntN(6); n >= 0; n-- {
			rg := ranges[r.IntN(len(ranges))]
			b.WriteRune(rg[0] + rune(r.IntN(int(rg[1]-rg[0]))))
		}
		words[i] = b.String()
	}
	var tried []string
	for _, coll := range []string{"C.utf8", "C.UTF-8", "pg_c_utf8", "ucs_basic"} {
		if !collationExists(t, conn, coll) {
			continue
		}
		tried = append(tried, coll)
		var same bool
		var first string
		err := conn.QueryRow(t.Context(), fmt.Sprintf(`WITH w AS (SELECT unnest($1::text[]) AS s)
			SELECT (SELECT array_agg(s ORDER BY s COLLATE %q) FROM w) = (SELECT array_agg(s ORDER BY s COLLATE "C") FROM w),
			coalesce((SELECT a.s FROM (SELECT s, row_number() OVER (ORDER BY s COLLATE %q) n FROM w) a
				JOIN (SELECT s, row_number() OVER (ORDER BY s COLLATE "C") n FROM w) b USING (n) WHERE a.s <> b.s ORDER BY n LIMIT 1), '')`, coll, coll),
			words).Scan(&same, &first)
		if err != nil {
			t.Fatalf("%s: %v", coll, err)
		}
		if !same {
			t.Errorf("COLLATE %q orders %d strings unlike COLLATE \"C\" (first difference at %q): it is not byte order on this server", coll, len(words), first)
		}
	}
	t.Logf("checked %v over %d strings", tried, len(words))
}

// withoutFacts is rel without the catalog facts only the copy reads (a
// stream's Relation carries none) and the commit LSN only the stream's
// carries, for comparing the two descriptions.
func withoutFacts(rel *wal.Relation) *wal.Relation {
	if rel == nil {
		return nil
	}
	out := *rel
	out.Facts = nil
	out.DescribedAt = 0 // the stream's: the commit LSN it came in
	out.Columns = slices.Clone(rel.Columns)
	for i := range out.Columns {
		out.Columns[i].Collation = wal.Collation{}
	}
	return &out
}
