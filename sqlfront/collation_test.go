package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

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
		cols = append(cols, `i text COLLATE "en-x-icu"`, `v varchar(20) COLLATE "en-x-icu"`)
	}
	var vals []string
	for k, w := range collWords {
		lit := "'" + strings.ReplaceAll(w, "'", "''") + "'"
		row := fmt.Sprintf("(%d, %s, %s", k, lit, lit)
		if haveCUTF8 {
			row += ", " + lit
		}
		if haveICU {
			row += ", " + lit + ", " + lit
		}
		vals = append(vals, row+")")
	}
	setup := []string{
		"CREATE TABLE coll_t (id int PRIMARY KEY, " + strings.Join(cols, ", ") + ")",
		"INSERT INTO coll_t VALUES " + strings.Join(vals, ", "),
	}
	r := newRig(t, []string{"public.coll_t"}, setup)
	same := []string{
		"SELECT c FROM coll_t ORDER BY c, id",
		"SELECT id FROM coll_t WHERE c < 'b' ORDER BY id",
		"SELECT min(c), max(c) FROM coll_t",
		"SELECT d FROM coll_t ORDER BY d DESC, id",
		"SELECT id FROM coll_t WHERE d BETWEEN 'B' AND 'z' ORDER BY id",
		"SELECT c, count(*) FROM coll_t GROUP BY c ORDER BY c",
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
	for _, q := range refused {
		_, err := sc.Exec(ctx, q).ReadAll()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "0A000" || !strings.Contains(pe.Message, `"en-x-icu"`) || !strings.Contains(pe.Hint, `COLLATE "C"`) {
			t.Errorf("%s: want 0A000 naming \"en-x-icu\" with a COLLATE \"C\" hint, got %v", q, err)
		}
	}
}
