package sqlfront_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestEnumReusedLabel (issue 21, enum item): after ALTER TYPE … RENAME
// VALUE 'sad' TO 'blue' and ADD VALUE 'sad', a row written before holds
// 'sad' in the mirror (pgoutput sends the label's text) where PostgreSQL
// holds the renamed label's OID and prints 'blue'; a row written after
// holds the new 'sad'. The two cannot be told apart, so every statement
// reading a stored 'sad' — printing it on the flat path (the direct
// path's point get and range, from the in-memory HEAD and the trees),
// comparing, ordering or grouping it on sql/exec — is refused 0A000,
// never printed as 'sad'; rows holding the other labels answer as
// PostgreSQL does, and the history outlives the next catalog poll. On
// 2f71b81 each refused statement printed 'sad' (or counted row 2 as the
// new 'sad').
func TestEnumReusedLabel(t *testing.T) {
	setup := []string{
		`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`,
		`CREATE TABLE eu (id int PRIMARY KEY, m mood, note text)`,
		`INSERT INTO eu VALUES (1, 'ok', 'a'), (2, 'sad', 'b'), (3, 'happy', 'c'), (4, NULL, 'd')`,
	}
	r := newRig(t, []string{"public.eu"}, setup,
		// Each step changes a followed row: the rig waits for the step's
		// commit in the mirror.
		[]string{`ALTER TYPE mood RENAME VALUE 'sad' TO 'blue'`, `ALTER TYPE mood ADD VALUE 'sad'`, `UPDATE eu SET note = 'a' WHERE id = 1`},
		[]string{`INSERT INTO eu VALUES (5, 'sad', 'e'), (6, 'blue', 'f')`})
	pollFacts(t, r)
	ctx := context.Background()
	conns := connectBoth(t, r)
	pgc, sc := conns["postgresql"], conns["sidecar"]
	tree, err := pgconn.Connect(ctx, r.treeURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close(ctx)
	check := func() {
		t.Helper()
		refused := []string{
			"SELECT id, m FROM eu WHERE id = 2", // PostgreSQL: blue
			"SELECT id, m FROM eu WHERE id = 5", // PostgreSQL: sad (the new label)
			"SELECT id, m FROM eu WHERE id < 4",
			"SELECT * FROM eu ORDER BY id",
			"SELECT id, m, note FROM eu WHERE note = 'b'",
			"SELECT id FROM eu WHERE m = 'sad' ORDER BY id",
			"SELECT id FROM eu WHERE m = 'blue' ORDER BY id",
			"SELECT m, count(*) FROM eu GROUP BY m ORDER BY m",
			"SELECT id, m::text FROM eu ORDER BY m, id",
			"SELECT max(m) FROM eu",
			"SELECT count(m) FROM eu", // reads every value: refused too, though the count would be right
		}
		for _, q := range refused {
			if w := pgc.ExecParams(ctx, q, nil, nil, nil, nil).Read(); w.Err != nil {
				t.Fatalf("PostgreSQL: %s: %v", q, w.Err)
			}
			for _, c := range []struct {
				name string
				conn *pgconn.PgConn
			}{{"", sc}, {" (trees)", tree}} {
				g := c.conn.ExecParams(ctx, q, nil, nil, nil, nil).Read()
				if pgCode(g.Err) != "0A000" {
					t.Errorf("sidecar%s: %s: %q %v, want 0A000 (a stored 'sad' is 'blue' or 'sad')", c.name, q, rowsText(g), g.Err)
				} else if !strings.Contains(g.Err.Error(), `"sad"`) {
					t.Errorf("sidecar%s: %s: %v, want the refusal to name the label", c.name, q, g.Err)
				}
			}
		}
		for _, q := range []string{
			"SELECT id, m FROM eu WHERE id = 1",
			"SELECT id, m FROM eu WHERE id = 6",
			"SELECT id, m, note FROM eu WHERE id IN (1, 3, 4, 6) ORDER BY id",
			"SELECT id FROM eu WHERE id IN (1, 3) AND m > 'ok' ORDER BY id",
			"SELECT count(*), count(note) FROM eu",
			"SELECT 'sad'::mood < 'blue'::mood, 'sad'::mood",
		} {
			want := pgc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
			if want.Err != nil {
				t.Fatalf("PostgreSQL: %s: %v", q, want.Err)
			}
			sameResult(t, q, sc.ExecParams(ctx, q, nil, nil, nil, nil).Read(), want)
			sameResult(t, q+" (trees)", tree.ExecParams(ctx, q, nil, nil, nil, nil).Read(), want)
		}
	}
	check()
	// The next poll (another label) carries the history on.
	execSQL(t, r.pgURL, "ALTER TYPE mood ADD VALUE 'calm'")
	pollFacts(t, r)
	check()
}
