package sqlfront_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestMoneyBitColumns (issue 23): a followed table with money, bit(n)
// and bit varying(n) columns read through the SQL port — statements the
// engine runs (a join with jsonb_each, grouping, ordering, arithmetic,
// the bit operators and functions, sum/min/max) and the front end's own
// paths — answered as PostgreSQL answers them in text and binary
// format; COPY of them too. Under an lc_monetary whose money text is not
// C's, statements reading a table with a money column or naming money
// are refused (0A000; coarse: the table's other columns too) and others
// answered.
// Before, the engine refused every statement reading such a column ("a
// column of type oid790"), money in binary format was refused, and
// sum(money) was 42883.
func TestMoneyBitColumns(t *testing.T) {
	r := newRig(t, []string{"public.m"}, []string{
		"CREATE TABLE m (id int PRIMARY KEY, amt money, b bit(4), vb varbit(8), props jsonb)",
		`INSERT INTO m SELECT i, ((i * 7919) % 20001 - 10000)::numeric / 7, (i % 16)::bit(4), substring((i * 37)::bit(12) from 1 + i % 4 for i % 9),
		   jsonb_build_object('k' || i % 3, i) FROM generate_series(1, 200) i`,
		`INSERT INTO m VALUES (201, NULL, NULL, NULL, NULL), (202, '92233720368547758.07', B'1111', B'11111111', '{}'), (203, '-0.01', B'0000', B'', '{"a": 1}')`,
	})
	stmts := []string{
		"SELECT id, amt, b, vb FROM m ORDER BY id",
		"SELECT id, amt FROM m WHERE id = 202",
		"SELECT m.id, amt, b, vb, k FROM m, jsonb_each(m.props) j(k, v) ORDER BY 1, k",
		"SELECT sum(amt), min(amt), max(amt), count(DISTINCT amt) FROM m WHERE id < 202",
		"SELECT b, count(*), sum(amt), min(amt), max(amt) FROM m WHERE id < 202 GROUP BY b ORDER BY b",
		"SELECT id, amt * 2, amt / 3, amt + '1.01', amt - amt, amt / '2'::money, amt::numeric, cash_words(amt) FROM m WHERE id < 50 ORDER BY id",
		"SELECT id, b & B'1010', b | B'0101', b # B'1111', ~b, b << 1, b >> 2, vb || b, length(vb), bit_count(vb), get_bit(b, 0), set_bit(b, 3, 1), substring(vb from 2 for 3), position(B'1' in vb), b::int4, b = vb FROM m WHERE id < 60 ORDER BY id",
		"SELECT id FROM m WHERE amt > '100' AND amt < '$500' ORDER BY id",
		"SELECT id, amt FROM m ORDER BY amt DESC NULLS LAST, id LIMIT 10",
		"SELECT vb, count(*) FROM m GROUP BY vb ORDER BY vb",
		"SELECT DISTINCT b FROM m ORDER BY b",
		"SELECT a.id, b.id FROM m a JOIN m b ON a.vb = b.vb AND a.id < b.id WHERE a.id % 20 = 0 ORDER BY 1, 2",
		"SELECT id FROM m WHERE b = B'0101' OR vb = '101' ORDER BY id",
		"SELECT id, amt FROM m WHERE amt = '1,234.57' OR amt = '-0.01' ORDER BY id",
	}
	compareWithPostgres(t, r.pgURL, r.sqlURL, stmts, nil, "lc_monetary C")
	sc, pc := copyConnBoth(t, r)
	copySame(t, sc, pc,
		"COPY m (id, amt, b, vb) TO STDOUT",
		"COPY m (id, amt, b, vb) TO STDOUT (FORMAT binary)",
		"COPY (SELECT id, amt * 2, b & B'1100', vb || B'1' FROM m ORDER BY id) TO STDOUT (FORMAT csv, HEADER)",
		"COPY (SELECT id, amt, b, vb FROM m ORDER BY id) TO STDOUT (FORMAT binary)",
	)

	// Under another lc_monetary: money refused, the rest answered.
	ctx := context.Background()
	c, err := pgconn.Connect(ctx, r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	run := func(q string) error { return c.ExecParams(ctx, q, nil, nil, nil, nil).Read().Err }
	if err := run("SET lc_monetary = 'de_DE.UTF-8'"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SELECT id, amt FROM m WHERE id = 1", "SELECT sum(amt) FROM m", "SELECT '1'::money", "COPY m TO STDOUT"} {
		if got := sqlState(run(q)); got != "0A000" {
			t.Errorf("under lc_monetary de_DE: %s: %s, want 0A000", q, got)
		}
	}
	if err := run("SELECT B'101' & B'110', 1 + 1"); err != nil {
		t.Errorf("under lc_monetary de_DE, no money: %v", err)
	}
	if err := run("RESET lc_monetary"); err != nil {
		t.Fatal(err)
	}
	if err := run("SELECT id, amt FROM m WHERE id = 1"); err != nil {
		t.Errorf("after RESET lc_monetary: %v", err)
	}
}
