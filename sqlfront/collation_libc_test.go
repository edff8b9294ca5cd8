package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/libccoll"
	"github.com/sidecar-dev/sidecar/internal/testenv"
)

// libcWords are strings whose en_US order is not their bytes': case,
// accents, punctuation, spaces, digits, hyphens, the empty string and
// non-Latin scripts.
var libcWords = []string{"apple", "Apple", "APPLE", "Banana", "banana", "cherry", "éclair", "eclair", "Éclair", "zebra", "Zebra",
	"a-b", "ab", "a b", "a_b", "a.b", "10", "9", "1 0", "-5", "ß", "ss", "Ärger", "arger", "Ångström", "日本", "中文", "😀",
	"", " ", "_x", "~", "ÿ", "ǅ", "ﬃ", "\u00a0a", "co-op", "coop", "O'Brien", "obrien", "naïve", "naive", "Ωmega", "омега", "Ом"}

// libcAlphabet is what the random strings are made of.
var libcAlphabet = []rune("aAbBzZ eé-_.'0912ÄäßøØ日Ω😀\u0301")

// TestCollationLibcDatabaseDefault (issue 22 item 5, issue 23): in a
// database whose default collation is a libc locale (en_US.UTF-8, as the
// official Docker image and most distributions' initdb make it), text
// ordered under the default is answered as PostgreSQL does (strcoll_l
// with a strcmp tiebreak), proven when the facts were read (same glibc
// version, a probe sorts alike); a COLLATE "C" column orders in byte
// order; a statement ordering both, or ordering text where sql/exec keeps
// byte order, is refused. Before the fix every ordering of text here was
// refused with 0A000.
func TestCollationLibcDatabaseDefault(t *testing.T) {
	ctx := context.Background()
	if _, err := libccoll.Open("en_US.UTF-8"); err != nil {
		testenv.Missing(t, err.Error(), "install Debian's locales package and generate en_US.UTF-8 (.ci/run does)")
	}
	admin, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	name := "libc_default_" + strings.ToLower(strings.NewReplacer("/", "_").Replace(t.Name()))
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 LOCALE 'en_US.UTF-8' ENCODING 'UTF8'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // after the daemon stopped: its slot too
		if err := pg.DropDB(context.Background(), name); err != nil {
			t.Error(err)
		}
	})
	seed := time.Now().UnixNano()
	t.Logf("random strings: seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	var vals, rnd []string
	for k, w := range libcWords {
		vals = append(vals, fmt.Sprintf("(%d, %s, %s, %s, %s)", k, quote(w), quote(w), quote(w), quote(w)))
	}
	vals = append(vals, fmt.Sprintf("(%d, NULL, NULL, NULL, NULL)", len(libcWords)))
	for k := 0; k < 400; k++ {
		n := rng.IntN(7)
		var b strings.Builder
		for range n {
			b.WriteRune(libcAlphabet[rng.IntN(len(libcAlphabet))])
		}
		rnd = append(rnd, fmt.Sprintf("(%d, %s)", k, quote(b.String())))
	}
	url := pg.URL(name)
	execSQL(t, url, markerSetup,
		`CREATE TABLE words (id int PRIMARY KEY, s text, c text COLLATE "C", v varchar(40), b char(24))`,
		"INSERT INTO words VALUES "+strings.Join(vals, ", "),
		"CREATE TABLE rnd (id int PRIMARY KEY, s text)",
		"INSERT INTO rnd VALUES "+strings.Join(rnd, ", "),
		"CREATE TABLE tkey (k text PRIMARY KEY)",
		"INSERT INTO tkey SELECT s FROM rnd ON CONFLICT DO NOTHING")
	sc, sqlURL := serveFollowed(t, url, []string{"public.marker", "public.words", "public.rnd", "public.tkey"},
		"SELECT k FROM tkey WHERE k = 'a'", "SELECT id FROM words WHERE id = 1") // casemap_test.go
	defer sc.Close(ctx)
	compareWithPostgres(t, url, sqlURL, []string{
		"SELECT s FROM words ORDER BY s, id",
		"SELECT s FROM words ORDER BY s DESC, id",
		"SELECT s FROM words ORDER BY s NULLS FIRST, id",
		"SELECT s FROM words ORDER BY s DESC NULLS LAST, id",
		"SELECT min(s), max(s), min(v), max(v), min(b), max(b) FROM words",
		"SELECT id FROM words WHERE s < 'b' ORDER BY id",
		"SELECT id FROM words WHERE 'B' <= s ORDER BY id",
		"SELECT id FROM words WHERE s BETWEEN 'A' AND 'n' ORDER BY id",
		"SELECT id, row_number() OVER (ORDER BY s, id), rank() OVER (ORDER BY s) FROM words ORDER BY id",
		"SELECT id, min(s) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) FROM words ORDER BY id",
		"SELECT DISTINCT ON (s) s, id FROM words ORDER BY s, id",
		"SELECT s FROM words ORDER BY s LIMIT 7",
		"SELECT s FROM words ORDER BY s DESC LIMIT 5 OFFSET 2",
		"SELECT v FROM words ORDER BY v, id",
		"SELECT b FROM words ORDER BY b, id",
		"SELECT greatest(s, 'm'), least(s, 'M') FROM words ORDER BY id",
		"SELECT s, count(*) FROM words GROUP BY s ORDER BY s",
		"SELECT a.s FROM words a JOIN words b USING (id) ORDER BY a.s, a.id",
		"SELECT s FROM rnd WHERE id < 40 UNION SELECT k FROM tkey ORDER BY 1",
		"WITH w AS (SELECT s FROM rnd) SELECT s FROM w ORDER BY s LIMIT 30",
		"SELECT k FROM tkey WHERE k > 'b' ORDER BY k",
		"SELECT k FROM tkey WHERE k >= 'Ä' AND k < 'z' ORDER BY k DESC",
		// the COLLATE "C" column and what derives from it order in byte order
		"SELECT c FROM words ORDER BY c, id",
		"SELECT id FROM words WHERE c < 'b' ORDER BY id",
		"SELECT c || s FROM words ORDER BY 1, id",
		"SELECT min(c), max(c) FROM words",
		// "char" reaches min/max(text) by its implicit cast: compared as
		// text under the database's collation ('a' < 'B' under en_US,
		// not in bytes), in aggregates and windows
		// (ASCII first letters: "char" is one byte)
		`SELECT min(x), max(x), max(DISTINCT x) FROM (SELECT left(s, 1)::"char" AS x FROM words WHERE ascii(s) BETWEEN 33 AND 126) q`,
		`SELECT id, max(left(s, 1)::"char") OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM words WHERE ascii(s) BETWEEN 33 AND 126 ORDER BY id`,
		`SELECT id % 3, min(left(s, 1)::"char") FROM words WHERE ascii(s) BETWEEN 33 AND 126 GROUP BY 1 ORDER BY 1`,
		`SELECT s FROM words ORDER BY s COLLATE "C", id`,
		// equality is bytewise under a deterministic collation
		"SELECT id FROM words WHERE s = 'apple'",
		"SELECT id FROM words WHERE s IN ('Apple', 'zebra') ORDER BY id",
		// the seeded random strings
		"SELECT s, id FROM rnd ORDER BY s, id",
		"SELECT s, id FROM rnd ORDER BY s DESC, id DESC LIMIT 50",
		"SELECT min(s), max(s) FROM rnd",
		"SELECT count(*) FROM rnd a JOIN rnd b ON a.s < b.s WHERE a.id < 60 AND b.id < 60",
		// an aggregate's ORDER BY and WITHIN GROUP (refused 0A000 before
		// session 16: string_agg(name, ', ' ORDER BY name) of a report)
		"SELECT string_agg(s, ',' ORDER BY s) FROM words",
		"SELECT string_agg(s, ',' ORDER BY s DESC NULLS FIRST, id) FROM words",
		"SELECT string_agg(DISTINCT s, ',' ORDER BY s) FROM rnd",
		"SELECT id % 5, string_agg(s, '|' ORDER BY s, id) FROM rnd GROUP BY 1 ORDER BY 1",
		"SELECT array_agg(s ORDER BY s, id), array_agg(v ORDER BY v DESC, id) FROM words",
		"SELECT json_agg(s ORDER BY s, id) FROM rnd WHERE id < 100",
		"SELECT array_agg(b ORDER BY b, id) FROM words",
		"SELECT mode() WITHIN GROUP (ORDER BY s) FROM words",
		"SELECT mode() WITHIN GROUP (ORDER BY s) FROM rnd",
		"SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY s), percentile_disc(0.1) WITHIN GROUP (ORDER BY s DESC) FROM rnd",
		"SELECT string_agg(c, ',' ORDER BY c) FROM words",
		"SELECT rank('m') WITHIN GROUP (ORDER BY s), dense_rank('B') WITHIN GROUP (ORDER BY s DESC), percent_rank('apple') WITHIN GROUP (ORDER BY s) FROM words",
		"SELECT id % 4, rank('Ä') WITHIN GROUP (ORDER BY s NULLS FIRST) FROM rnd GROUP BY 1 ORDER BY 1",
	}, nil, "libc default")
	for _, q := range []string{
		"SELECT s, c FROM words ORDER BY s, c",                     // two collations in one statement
		"SELECT s FROM words ORDER BY ARRAY[s]",                    // arrays of text
		`SELECT s FROM words ORDER BY s COLLATE "en_US"`,           // an explicit libc COLLATE
		"SELECT id FROM words WHERE (s, id) < ('b', 3) ORDER BY 1", // a row comparison
		// a set operation's column: not traced where a table has a column of another collation
		"SELECT s FROM words WHERE id < 20 UNION SELECT s FROM rnd WHERE id < 20 ORDER BY 1",
	} {
		_, err := sc.Exec(ctx, q).ReadAll()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "0A000" {
			t.Errorf("%s: want 0A000, got %v", q, err)
		}
	}
}
