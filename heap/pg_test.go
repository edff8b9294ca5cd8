package heap

import (
	"context"
	"maps"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/rowenc"
)

// pgRows runs query on a fresh database (after setup) under the canonical
// session settings and returns the rows as output-function texts (nil =
// NULL): exactly what the mirror stores.
func pgRows(t *testing.T, setup, query string) [][][]byte {
	t.Helper()
	cfg, err := pgconn.ParseConfig(pg.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	maps.Copy(cfg.RuntimeParams, rowenc.SessionParams())
	conn, err := pgconn.ConnectConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), setup).ReadAll(); err != nil {
		t.Fatalf("setup: %v", err)
	}
	res, err := conn.Exec(t.Context(), query).ReadAll()
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	return res[len(res)-1].Rows
}

// TestRoundTripPostgres: rows PostgreSQL prints for every supported type,
// edge values and random ones, go into the heap and come back as exactly
// their vrow1 bytes; floats, dates and timestamps need no exception (the
// printers match PostgreSQL's), numeric only for NaN, ±Infinity and long
// values.
func TestRoundTripPostgres(t *testing.T) {
	const setup = `
CREATE TABLE t (id int8, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, n numeric, b bool,
  d date, ts timestamp, tz timestamptz, tx text, by bytea, u uuid, vc varchar(20), j jsonb, iv interval);
INSERT INTO t VALUES
 (1, 32767, 2147483647, 9223372036854775807, 'NaN', 'NaN', 'NaN', true, 'infinity', 'infinity', 'infinity', '', '\x', gen_random_uuid(), '', '{}', '1 day'),
 (2, -32768, -2147483648, -9223372036854775808, 'Infinity', 'Infinity', 'Infinity', false, '-infinity', '-infinity', '-infinity', 'a|b:c', '\x00ff', NULL, 'x', '[1,2]', '-1 mon'),
 (3, 0, 0, 0, '-Infinity', '-Infinity', '-Infinity', NULL, '4713-01-01 BC', '4713-01-01 00:00:00 BC', '4713-01-01 00:00:00+00 BC', E'tab\tnl\n', '\xdeadbeef', NULL, NULL, 'null', NULL),
 (4, NULL, NULL, NULL, '-0', '-0', '-0.000', NULL, '5874897-12-31', '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00', 'ünïcödé', NULL, NULL, NULL, NULL, NULL),
 (5, 1, 1, 1, 3.4028235e38, 1.7976931348623157e308, 123456789012345678901234567890.123456789, true, '2000-01-01', '2000-01-01 00:00:00', '2000-01-01 00:00:00+00', NULL, NULL, NULL, NULL, NULL, NULL),
 (6, -1, -1, -1, 1e-45, 5e-324, '0.000000000000000000000000000001', false, '0001-01-01', '0001-01-01 00:00:00.000001', '1999-12-31 23:59:59.5+00', NULL, NULL, NULL, NULL, NULL, NULL),
 (7, 2, 2, 2, 1e6, 1e15, 99999999999999999.9, true, '0001-12-31 BC', '1970-01-01 00:00:00', '1970-01-01 00:00:00+00', NULL, NULL, NULL, NULL, NULL, NULL),
 (8, 3, 3, 3, 100000, 100000000000000, -0.5, false, '2024-02-29', '2024-02-29 12:00:00.1', '2024-02-29 12:00:00.12+00', NULL, NULL, NULL, NULL, NULL, NULL),
 (9, 4, 4, 4, 0.0001, 0.0001, 0, true, '1999-12-31', '1999-12-31 23:59:59', '1999-12-31 23:59:59+00', NULL, NULL, NULL, NULL, NULL, NULL),
 (10, 5, 5, 5, 0.00001, 0.00001, 1.50, true, '10000-01-01', '10000-01-01 00:00:00', '10000-01-01 00:00:00+00', NULL, NULL, NULL, NULL, NULL, NULL);
SELECT setseed(0.13);
INSERT INTO t SELECT 100 + g,
  (random()*65535 - 32768)::int2, (random()*4294967295 - 2147483648)::int8::int4,
  (random()*1.8e19 - 9e18)::numeric::int8,
  (random() * 10 ^ (random()*70 - 35))::float4 * (CASE WHEN random() < .5 THEN -1 ELSE 1 END),
  (random() * 10 ^ (random()*600 - 300)) * (CASE WHEN random() < .5 THEN -1 ELSE 1 END),
  round((random()*2e9 - 1e9)::numeric, (random()*8)::int),
  random() < .5,
  date '2000-01-01' + (random()*2000000 - 1000000)::int,
  timestamp '2000-01-01' + (random()*1e10 - 5e9) * interval '1 second' + (random()*1e6)::int * interval '1 microsecond',
  timestamptz '2000-01-01 00:00:00+00' + (random()*1e10 - 5e9) * interval '1 second',
  md5(g::text), decode(md5(g::text), 'hex'), gen_random_uuid(), left(md5(g::text), (random()*20)::int),
  jsonb_build_object('g', g), (g || ' hours')::interval
FROM generate_series(1, 20000) g;`
	rows := pgRows(t, setup, "SELECT * FROM t ORDER BY id")
	schema := Schema{}
	for _, name := range []string{"id int8", "i2 int2", "i4 int4", "i8 int8", "f4 float4", "f8 float8", "n numeric", "b bool",
		"d date", "ts timestamp", "tz timestamptz", "tx text", "by bytea", "u uuid", "vc varchar", "j jsonb", "iv interval"} {
		var col, typ string
		for i := range name {
			if name[i] == ' ' {
				col, typ = name[:i], name[i+1:]
				break
			}
		}
		schema.Columns = append(schema.Columns, Column{Name: col, Kind: KindForType(typ)})
	}
	h, err := New(schema, Config{PageRows: 256})
	if err != nil {
		t.Fatal(err)
	}
	var b Batch
	want := make([][]byte, len(rows))
	for i, r := range rows {
		want[i] = rowenc.Encode(r)
		b.Ops = append(b.Ops, Op{Kind: OpInsert, Row: want[i]})
	}
	ids, err := h.Apply(b)
	if err != nil {
		t.Fatal(err)
	}
	snap := h.Snapshot()
	defer snap.Release()
	for i, id := range ids {
		got, ok := snap.Row(nil, id)
		if !ok || string(got) != string(want[i]) {
			t.Fatalf("row %d: got %q, want %q", i, got, want[i])
		}
	}
	// Exceptions: count per column.
	exc := make([]int, len(schema.Columns))
	examples := make([][]string, len(schema.Columns))
	for p := range snap.NumPages() {
		pv := snap.Page(p)
		for c := range schema.Columns {
			for _, w := range pv.Exceptions(c) {
				exc[c] += popcount(w)
			}
		}
	}
	for p := range snap.NumPages() {
		pv := snap.Page(p)
		for c := range schema.Columns {
			e := pv.Exceptions(c)
			for slot := range pv.Slots() {
				if e != nil && bit(e, slot) && len(examples[c]) < 5 {
					examples[c] = append(examples[c], string(pv.Text(c, slot)))
				}
			}
		}
	}
	for c, col := range schema.Columns {
		wantExc := 0
		if col.Name == "n" {
			wantExc = 4 // NaN, Infinity, -Infinity, the 39-digit value
		}
		if exc[c] != wantExc {
			t.Errorf("column %s (%v): %d exceptions, want %d; e.g. %q", col.Name, col.Kind, exc[c], wantExc, examples[c])
		}
	}
	t.Logf("%d rows round-tripped through %d pages", len(rows), snap.NumPages())
}
