package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/sqlfront"
)

// TestTopNRawBound: ORDER BY k LIMIT n over the in-memory HEAD's typed
// pages, where the top-N's bound judges the first key on the pages' raw
// values (vexec_topn.go: integers, bigints, numerics, dates as scaled
// integers, text and varchar as bytes under the C collation) and skips
// whole pages on their zone maps. The table spans ~30 pages, its keys
// in an order unrelated to the pages', with NULLs, negative values,
// numerics held as exceptions (NaN, ±Infinity, 30 digits), ±infinity
// dates and text of shared prefixes: each answer is PostgreSQL's, in
// text and binary format, ASC/DESC, NULLS FIRST/LAST, with and without
// WHERE (comparisons that cannot fail, so pages are skipped, and ones
// that can, so they are not), straight and through a subquery in FROM;
// a WHERE that fails on a row of a page the bound would skip fails as
// PostgreSQL does.
func TestTopNRawBound(t *testing.T) {
	const n = 30000
	r := newRig(t, []string{"public.tr"}, []string{
		"CREATE TABLE tr (id int PRIMARY KEY, a int NOT NULL, b bigint, nm numeric(12,2), nn numeric, d date, s text, v varchar(20), g int NOT NULL)",
		fmt.Sprintf(`INSERT INTO tr SELECT i,
			(i::bigint * 7919) %% %[1]d,
			CASE WHEN i %% 7 = 0 THEN NULL ELSE ((i::bigint * 104729) %% 20011 - 10000) * 3000000000 END,
			CASE WHEN i %% 9 = 0 THEN NULL ELSE ((i * 31) %% 5003 - 2500) * 0.25 END,
			CASE WHEN i %% 4001 = 0 THEN 'NaN'::numeric WHEN i %% 4003 = 0 THEN 'Infinity' WHEN i %% 4007 = 0 THEN '-Infinity'
			     WHEN i %% 3001 = 0 THEN ((i %% 13) - 6) * 1000000000000000000000000000.5 WHEN i %% 11 = 0 THEN NULL
			     ELSE ((i * 17) %% 9973 - 5000) / 8.0 END,
			CASE WHEN i = 12345 THEN 'infinity'::date WHEN i = 23456 THEN '-infinity' WHEN i %% 13 = 0 THEN NULL
			     ELSE date '2000-01-01' + ((i * 53) %% 8000 - 4000) END,
			CASE WHEN i %% 5 = 0 THEN NULL ELSE 'k' || ((i * 211) %% 1009) || CASE WHEN i %% 3 = 0 THEN 'é' ELSE '' END END,
			'v' || ((i * 37) %% 997),
			i %% 10
		FROM generate_series(1, %[1]d) i`, n),
		"VACUUM ANALYZE tr",
	})
	var stmts []string
	for _, q := range []string{
		"ORDER BY a LIMIT 10",
		"ORDER BY a DESC LIMIT 10 OFFSET 5",
		"ORDER BY b, id LIMIT 25",
		"ORDER BY b NULLS FIRST, id LIMIT 25",
		"ORDER BY b DESC, id LIMIT 25",
		"ORDER BY b DESC NULLS LAST, id LIMIT 25",
		"ORDER BY nm, id LIMIT 30",
		"ORDER BY nm DESC NULLS LAST, id LIMIT 30",
		"ORDER BY nn, id LIMIT 12",
		"ORDER BY nn DESC, id LIMIT 12",
		"ORDER BY nn DESC NULLS LAST, id LIMIT 12",
		"ORDER BY d, id LIMIT 20",
		"ORDER BY d DESC NULLS LAST, id LIMIT 20",
		"ORDER BY s, id LIMIT 20",
		"ORDER BY s DESC, id LIMIT 20",
		"ORDER BY s DESC NULLS LAST, id LIMIT 20",
		"ORDER BY v DESC, id LIMIT 20",
		"ORDER BY v, id LIMIT 1500",
		"WHERE g = 3 ORDER BY a LIMIT 10",
		"WHERE g > 2 AND b < 1000 ORDER BY nm DESC, id LIMIT 10",
		"WHERE s LIKE 'k1%' ORDER BY a DESC LIMIT 10",
		"WHERE nm IS NULL ORDER BY d NULLS FIRST, id LIMIT 10",
	} {
		stmts = append(stmts, "SELECT * FROM tr "+q, "SELECT id, s FROM (SELECT id, a, b, nm, nn, d, s, v, g FROM tr) x "+q)
	}
	url := "postgres://app@" + r.serve(t, sqlfront.Options{MaxConnections: 5, StatementTimeout: time.Minute}) + "/app?sslmode=disable"
	compareWithPostgres(t, r.pgURL, url, stmts, nil, "HEAD pages")

	// A filter that fails on a late row (id 29990) whose key is past the
	// bound: the scan must still evaluate it there (the page holding it
	// is not skipped: the conjunct can fail).
	ctx := context.Background()
	for _, q := range []string{
		"SELECT * FROM tr WHERE 1 / (id - 29990) >= 0 ORDER BY a LIMIT 5",
		"SELECT * FROM tr WHERE g < 100 AND 1 / (id - 29990) >= 0 ORDER BY b DESC NULLS LAST LIMIT 5",
	} {
		var codes [2]string
		for i, u := range []string{r.pgURL, url} {
			c, err := pgconn.Connect(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			res := c.ExecParams(ctx, q, nil, nil, nil, nil).Read()
			c.Close(ctx)
			var pe *pgconn.PgError
			if errors.As(res.Err, &pe) {
				codes[i] = pe.Code + " " + pe.Message
			} else {
				codes[i] = fmt.Sprintf("no error (%v, %d rows)", res.Err, len(res.Rows))
			}
		}
		// sidecar fails as PostgreSQL, or refuses naming the error (an
		// error under LIMIT: errorder.go); never answers rows.
		if !strings.HasPrefix(codes[0], "22012") || codes[1] != codes[0] && !(strings.HasPrefix(codes[1], "0A000") && strings.Contains(codes[1], "22012")) {
			t.Errorf("%s: sidecar %s, PostgreSQL %s", q, codes[1], codes[0])
		}
	}
}
