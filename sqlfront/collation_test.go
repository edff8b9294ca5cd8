package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// collWords are issue 21 item 12's words plus code points of every UTF-8
// length, upper and lower case, punctuation and digits: under an ICU
// collation their order is not their bytes'.
var collWords = []string{"apple", "Apple", "Banana", "cherry", "éclair", "zebra", "Zebra", "a-b", "ab", "a b", "10", "9",
	"ß", "Ärger", "Ångström", "日本", "中文", "😀", "z😀", "", " ", "_x", "~", "ÿ", "Ā", "ǅ", "ﬃ", "\u00a0a"}

// TestCollationAnswersOrRefuses (issue 21 item 12): text under a byte-order
// collation (C, and glibc's C.utf8 where the server has it) is ordered and
// compared as PostgreSQL does; under an ICU collation (where the server
// has ICU) ordering and range comparisons are refused with 0A000 naming
// the collation, equality answered, and COLLATE "C" answers again. Before
// the fix the ICU column was ordered bytewise: "Apple Banana apple …"
// where PostgreSQL says "apple Apple Banana …".
func TestCollationAnswersOrRefuses(t *testing.T) {
	ctx := context.Background()
	probe, err := pgx.Connect(ctx, pg.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	var haveICU, haveCUTF8 bool
	err = probe.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_collation WHERE collname = 'en-x-icu'),
		EXISTS (SELECT FROM pg_collation WHERE collname = 'C.utf8' AND collencoding IN (-1, 6))`).Scan(&haveICU, &haveCUTF8)
	probe.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"c text COLLATE \"C\"", "d text"}
	if haveCUTF8 {
		cols = append(cols, `u text COLLATE "C.utf8"`)
	}
	if haveICU {
		cols = append(cols, `i text COLLATE "en-x-icu"`, `v varchar(20) COLLATE "en-x-icu"`, `nd text COLLATE nd`)
	}
	var vals []string
	for k, w := range collWords {
		lit := "'" + strings.ReplaceAll(w, "'", "''") + "'"
		row := fmt.Sprintf("(%d, %s, %s", k, lit, lit)
		if haveCUTF8 {
			row += ", " + lit
		}
		if haveICU {
			row += ", " + lit + ", " + lit + ", " + lit
		}
		vals = append(vals, row+")")
	}
	var setup []string
	if haveICU {
		setup = append(setup, "CREATE COLLATION nd (provider = icu, locale = 'und-u-ks-level2', deterministic = false)")
	}
	setup = append(setup,
		"CREATE TABLE coll_t (id int PRIMARY KEY, "+strings.Join(cols, ", ")+")",
		"INSERT INTO coll_t VALUES "+strings.Join(vals, ", "),
	)
	follow := []string{"public.coll_t"}
	if haveICU { // coll_t's nondeterministic column refuses every sql/exec statement over it: a table without one
		setup = append(setup, `CREATE TABLE coll_icu (id int PRIMARY KEY, c text COLLATE "C", i text COLLATE "en-x-icu", tr text COLLATE "tr-x-icu")`,
			"INSERT INTO coll_icu SELECT id, c, c, c FROM coll_t")
		follow = append(follow, "public.coll_icu")
	}
	r := newRig(t, follow, setup)
	same := []string{
		"SELECT c FROM coll_t ORDER BY c, id",
		"SELECT id FROM coll_t WHERE c < 'b' ORDER BY id",
		"SELECT min(c), max(c) FROM coll_t",
		"SELECT d FROM coll_t ORDER BY d DESC, id",
		"SELECT id FROM coll_t WHERE d BETWEEN 'B' AND 'z' ORDER BY id",
		"SELECT c, count(*) FROM coll_t GROUP BY c ORDER BY c",
		"SELECT upper(c), lower(c), upper(d), lower(d) FROM coll_t ORDER BY id",
		`SELECT upper(d COLLATE "C") FROM coll_t ORDER BY id`,
	}
	var refused []string
	if haveCUTF8 {
		same = append(same, "SELECT u FROM coll_t ORDER BY u, id", "SELECT id FROM coll_t WHERE u >= 'a' ORDER BY id",
			"SELECT min(u), max(u) FROM coll_t")
	}
	if haveICU {
		same = append(same,
			"SELECT id FROM coll_t WHERE i = 'apple'",
			"SELECT id FROM coll_t WHERE i IN ('Apple', 'zebra') ORDER BY id",
			`SELECT i FROM coll_t ORDER BY i COLLATE "C", id`,
			`SELECT id FROM coll_t WHERE i COLLATE "C" < 'b' ORDER BY id`,
			"SELECT i, count(*) FROM coll_t GROUP BY i HAVING count(*) > 0 ORDER BY count(*), i COLLATE \"C\"",
			// ASCII values map as under every non-Turkic locale (non-ASCII
			// ones are refused when met: "SELECT upper(i) FROM coll_t" below)
			"SELECT id, upper(i), lower(v), lower(i || 'X') FROM coll_t WHERE id < 4 OR id BETWEEN 5 AND 11 ORDER BY id",
			// sql/exec: aggregates over ICU text ordered by something else
			"SELECT string_agg(i, ',' ORDER BY id), percentile_disc(0.5) WITHIN GROUP (ORDER BY id) FROM coll_icu",
		)
		refused = append(refused,
			"SELECT i FROM coll_t ORDER BY i",
			"SELECT i FROM coll_t ORDER BY 1 DESC",
			"SELECT v FROM coll_t ORDER BY v",
			"SELECT id FROM coll_t WHERE i < 'b'",
			"SELECT id FROM coll_t WHERE 'b' > i",
			"SELECT id FROM coll_t WHERE i BETWEEN 'a' AND 'c'",
			"SELECT min(i) FROM coll_t",
			"SELECT max(v) FROM coll_t",
			"SELECT i, count(*) FROM coll_t GROUP BY i ORDER BY i",
			"SELECT id FROM coll_t WHERE i || 'x' > 'b'",
			"SELECT id FROM coll_t WHERE i > c",
			"SELECT upper(i) FROM coll_t",
			"SELECT lower(v) FROM coll_t",
		)
	} else {
		t.Log("the server has no ICU collation en-x-icu: only byte-order collations are checked")
	}
	compareWithPostgres(t, r.pgURL, r.sqlURL, same, nil, "collations")
	sc, err := pgconn.Connect(ctx, r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(ctx)
	if haveICU { // nondeterministic: equality is not byte equality either
		for _, q := range []string{"SELECT id FROM coll_t WHERE nd = 'APPLE'", "SELECT id FROM coll_t WHERE nd IN ('x')", "SELECT nd FROM coll_t ORDER BY nd", "SELECT nd, count(*) FROM coll_t GROUP BY nd", "SELECT DISTINCT nd FROM coll_t", "SELECT count(DISTINCT nd) FROM coll_t", "SELECT id FROM coll_t WHERE nd LIKE 'a%'"} {
			_, err := sc.Exec(ctx, q).ReadAll()
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "0A000" || !strings.Contains(pe.Message, `nondeterministic collation "nd"`) {
				t.Errorf("%s: want 0A000 naming the nondeterministic collation nd, got %v", q, err)
			}
		}
	}
	if haveICU { // the sql/exec path (set operations, several FROM items) checks the same facts
		for _, q := range []string{"SELECT i FROM coll_t UNION SELECT i FROM coll_t ORDER BY 1", "SELECT a.id FROM coll_t a, coll_t b WHERE a.i < b.i",
			"SELECT * FROM (SELECT max(v) FROM coll_t) s", "WITH w AS (SELECT d FROM coll_t) SELECT d FROM w ORDER BY d",
			"SELECT a.i FROM coll_icu a JOIN coll_icu b USING (id) ORDER BY 1",
			// aggregates that sort text: their ORDER BY, DISTINCT, WITHIN GROUP
			"SELECT string_agg(c, ',' ORDER BY i) FROM coll_icu", "SELECT string_agg(DISTINCT i, ',') FROM coll_icu",
			"SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM coll_icu", "SELECT mode() WITHIN GROUP (ORDER BY i) FROM coll_icu",
			// Turkish maps ASCII 'i'/'I' otherwise: sql/exec's ASCII case mapping refused
			"SELECT upper(a.tr) FROM coll_icu a JOIN coll_icu b USING (id) WHERE a.id = 0",
			"SELECT lower(tr) FROM coll_icu UNION SELECT 'x'"} {
			_, err := sc.Exec(ctx, q).ReadAll()
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "0A000" || !strings.Contains(pe.Message, "collation") {
				t.Errorf("%s: want 0A000 naming a collation, got %v", q, err)
			}
		}
	}
	for _, q := range refused {
		_, err := sc.Exec(ctx, q).ReadAll()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "0A000" || !strings.Contains(pe.Message, `"en-x-icu"`) || !strings.Contains(pe.Hint, `COLLATE "C"`) {
			t.Errorf("%s: want 0A000 naming \"en-x-icu\" with a COLLATE \"C\" hint, got %v", q, err)
		}
	}
}

// TestCollationICUDatabaseDefault (issue 21 item 12): in a database whose
// default collation is ICU (PostgreSQL 15+ with ICU), text of the
// default collation, literals included, is not ordered in byte order:
// ORDER BY and comparisons on it are refused naming the default, a
// column declared COLLATE "C" and an explicit COLLATE "C" answer as
// PostgreSQL does.
func TestCollationICUDatabaseDefault(t *testing.T) {
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var icu bool
	if err := admin.QueryRow(ctx, "SELECT current_setting('server_version_num')::int >= 150000 AND EXISTS (SELECT FROM pg_collation WHERE collname = 'en-x-icu')").Scan(&icu); err != nil {
		t.Fatal(err)
	}
	if !icu {
		t.Skip("needs PostgreSQL 15+ with ICU")
	}
	name := "icu_default_" + strings.ToLower(strings.NewReplacer("/", "_").Replace(t.Name()))
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en' LOCALE 'C' ENCODING 'UTF8'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // after the daemon stopped: its slot too
		if err := pg.DropDB(context.Background(), name); err != nil {
			t.Error(err)
		}
	})
	url := pg.URL(name)
	execSQL(t, url, markerSetup, `CREATE TABLE words (id int PRIMARY KEY, s text, c text COLLATE "C", j jsonb)`,
		"INSERT INTO words VALUES (1, 'apple', 'apple', '\"apple\"'), (2, 'Apple', 'Apple', '\"Apple\"'), (3, 'Banana', 'Banana', '[\"Banana\"]'), (4, 'éclair', 'éclair', '1.0'), (5, 'zebra', 'zebra', '1')")
	sqlURL := daemonSQL(t, url, []string{"public.marker", "public.words"}, t.TempDir(), io.Discard)
	var sc *pgconn.PgConn
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if sc == nil {
			sc, _ = pgconn.Connect(ctx, sqlURL)
		}
		if sc != nil && sc.ExecParams(ctx, "SELECT id FROM words WHERE id = 5", nil, nil, nil, nil).Read().Err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the SQL port did not serve words in 2 minutes")
		}
	}
	defer sc.Close(ctx)
	compareWithPostgres(t, url, sqlURL, []string{
		"SELECT c FROM words ORDER BY c",
		"SELECT id FROM words WHERE c < 'b' ORDER BY id",
		`SELECT s FROM words ORDER BY s COLLATE "C"`,
		"SELECT id FROM words WHERE s = 'apple'",
		"SELECT min(c) FROM words",
		`SELECT id FROM words WHERE j = '1' ORDER BY id`, // jsonb equality is byte equality of its strings
	}, nil, "ICU default")
	// Catalog columns of type name sort under "C", as in PostgreSQL.
	if _, err := sc.Exec(ctx, "SELECT nspname FROM pg_namespace WHERE nspname > 'a' ORDER BY nspname").ReadAll(); err != nil {
		t.Errorf("ORDER BY a name column of the catalog: %v", err)
	}
	// jsonb orders its strings under the default collation too.
	for _, q := range []string{"SELECT id FROM words ORDER BY j", "SELECT id FROM words WHERE j < '\"b\"'", "SELECT s FROM words ORDER BY s", "SELECT id FROM words WHERE s < 'b'", "SELECT max(s) FROM words", "SELECT id FROM words WHERE 'a' < 'B'"} {
		_, err := sc.Exec(ctx, q).ReadAll()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "0A000" || !strings.Contains(pe.Message, `"default" (icu en)`) {
			t.Errorf("%s: want 0A000 naming the ICU default, got %v", q, err)
		}
	}
}
