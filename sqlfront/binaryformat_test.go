package sqlfront_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// binaryTypes is every column type the binary-format differential
// covers: the column's type and its values (SQL literals), edge values
// and NULL among them.
var binaryTypes = []struct{ typ, vals string }{
	{"int2", "0, -32768, 32767, NULL"},
	{"int4", "0, -2147483648, 2147483647, NULL"},
	{"int8", "0, -9223372036854775808, 9223372036854775807, NULL"},
	{"float4", "0, '-0', 1.5, '3.4028235e38', 'NaN', 'Infinity', '-Infinity', 1e-45, NULL"},
	{"float8", "0, '-0', 0.1, 1e308, 'NaN', 'Infinity', '-Infinity', 4.9e-324, NULL"},
	{"numeric", "0, '-0.00', 1.50, 123456789012345678901234567890.123456789, 0.000001, 'NaN', 'Infinity', '-Infinity', 1e100, -12.5, NULL"},
	{"numeric(10,3)", "1.5, -2, 0, NULL"},
	{"text", "'', 'abc', 'üñí', 'a''b', NULL"},
	{"varchar(10)", "'', 'abc', NULL"},
	{"char(4)", "'a', 'abcd', '', NULL"},
	{"bool", "true, false, NULL"},
	{"bytea", "'\\x', '\\xdeadbeef', '\\x00', NULL"},
	{"date", "'2024-02-29', '0001-01-01 BC', 'infinity', '-infinity', '1999-12-31', NULL"},
	{"time", "'00:00', '23:59:59.999999', '24:00:00', '12:34:56.5', NULL"},
	{"timetz", "'12:00:00+05', '00:00:00-03:30', '23:59:59.5+00', NULL"},
	{"timestamp", "'2024-02-29 12:34:56.789', 'infinity', '-infinity', '0044-03-15 12:00:00 BC', NULL"},
	{"timestamptz", "'2024-02-29 12:34:56.789+00', 'infinity', '-infinity', '2020-01-01 00:00:00+05', NULL"},
	{"interval", "'1 day', '1 year 2 months 3 days 04:05:06.5', '-1 day +02:00:00', '0', '-178000000 years', NULL"},
	{"uuid", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '00000000-0000-0000-0000-000000000000', NULL"},
	{"json", `'{"b":1,"a":2}', '[1, 2.50]', '"x"', 'null', NULL`},
	{"jsonb", `'{"b":1,"a":2,"aa":3}', '[1, 2.50, 1e3]', '"x"', 'null', NULL`},
	{"inet", "'1.2.3.4', '1.2.3.4/24', '::1', '::ffff:1.2.3.4/120', '2001:db8::1/64', '0.0.0.0/0', NULL"},
	{"cidr", "'10.0.0.0/8', '1.2.3.4/32', '::/0', '2001:db8::/32', NULL"},
	{"macaddr", "'08:00:2b:01:02:03', 'ff:ff:ff:ff:ff:ff', '00:00:00:00:00:00', NULL"},
	{"macaddr8", "'08:00:2b:01:02:03:04:05', NULL"},
	{"money", "'12.34', '-1', '0', NULL"},
	{"oid", "0, 4294967295, 12, NULL"},
	{"name", "'abc', '', NULL"},
	{`"char"`, "'a', '', NULL"},
	{"bit(3)", "B'101', B'000', NULL"},
	{"varbit", "B'', B'1', B'101010101', NULL"},
	{"int4[]", "'{1,2,3}', '{}', '{NULL,1}', '{{1,2},{3,4}}', '[0:1]={5,6}', NULL"},
	{"int8[]", "'{1,NULL}', '{}', NULL"},
	{"text[]", `'{a,"b c",NULL,""}', '{}', '{{a,b},{c,d}}', NULL`},
	{"numeric[]", "'{1.5,NaN,NULL}', NULL"},
	{"float8[]", "'{1.5,NaN,-Infinity}', NULL"},
	{"bool[]", "'{t,f,NULL}', NULL"},
	{"date[]", "'{2024-01-01,infinity}', NULL"},
	{"timestamptz[]", "'{\"2024-01-01 00:00:00+00\",infinity}', NULL"},
	{"uuid[]", "'{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', NULL"},
	{"jsonb[]", `'{"{\"a\": 1}",null}', NULL`},
	{"inet[]", "'{1.2.3.4,::1/64,NULL}', NULL"},
	{"varchar[]", "'{a,b}', NULL"},
	{"interval[]", "'{1 day,-00:00:01}', NULL"},
}

// TestBinaryFormatMatchesPostgres: every column type the sidecar serves,
// followed through the SQL port, read in binary result format (what
// pgx, asyncpg and psycopg's binary cursors ask for) from PostgreSQL and
// from the sidecar: the bytes must be PostgreSQL's send function's, or
// the column refused with 0A000. Each column is read plainly (the
// stored values) and through the engine (an expression over it and a
// join with a set-returning function, which no direct path serves).
func TestBinaryFormatMatchesPostgres(t *testing.T) {
	var cols, rows []string
	for i, c := range binaryTypes {
		cols = append(cols, fmt.Sprintf("c%d %s", i, c.typ))
	}
	// One row per value position: row k holds each type's k-th value
	// (NULL past its list).
	vals := make([][]string, len(binaryTypes))
	n := 0
	for i, c := range binaryTypes {
		vals[i] = splitValues(c.vals)
		n = max(n, len(vals[i]))
	}
	for k := 0; k < n; k++ {
		row := []string{fmt.Sprint(k)}
		for i, c := range binaryTypes {
			v := "NULL"
			if k < len(vals[i]) {
				v = vals[i][k]
			}
			row = append(row, "("+v+")::"+c.typ)
		}
		rows = append(rows, "("+strings.Join(row, ", ")+")")
	}
	r := newRig(t, []string{"public.bin"}, []string{
		"CREATE TABLE bin (id int PRIMARY KEY, " + strings.Join(cols, ", ") + ")",
		"INSERT INTO bin VALUES " + strings.Join(rows, ", "),
	})
	ctx := context.Background()
	conns := connectBoth(t, r) // pgbench_test.go
	var served, refused int
	for i, c := range binaryTypes {
		col := fmt.Sprintf("c%d", i)
		for _, q := range []string{
			"SELECT id, " + col + " FROM bin ORDER BY id",
			"SELECT b.id, b." + col + ", g FROM bin b, generate_series(1, 1) g ORDER BY b.id",
			"SELECT " + col + " FROM bin WHERE id >= 0 UNION ALL SELECT NULL LIMIT 100",
		} {
			want := conns["postgresql"].ExecParams(ctx, q, nil, nil, nil, []int16{1}).Read()
			if want.Err != nil {
				t.Fatalf("%s (%s) on PostgreSQL: %v", q, c.typ, want.Err)
			}
			got := conns["sidecar"].ExecParams(ctx, q, nil, nil, nil, []int16{1}).Read()
			if got.Err != nil {
				if pe, ok := got.Err.(*pgconn.PgError); ok && pe.Code == "0A000" {
					refused++
					t.Logf("refused %s (%s): %v", q, c.typ, pe.Message)
					continue
				}
				t.Errorf("%s (%s): %v", q, c.typ, got.Err)
				continue
			}
			served++
			if !sameRows(want.Rows, got.Rows) {
				t.Errorf("%s (%s) in binary format:\n  sidecar    %x\n  PostgreSQL %x", q, c.typ, got.Rows, want.Rows)
			}
		}
	}
	t.Logf("%d queries served, %d refused", served, refused)
}

// splitValues splits a list of SQL literals at top-level commas.
func splitValues(s string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '(' || c == '{':
			depth++
		case c == ')' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

func sameRows(a, b [][][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if string(a[i][j]) != string(b[i][j]) || (a[i][j] == nil) != (b[i][j] == nil) {
				return false
			}
		}
	}
	return true
}
