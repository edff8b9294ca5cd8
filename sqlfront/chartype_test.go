package sqlfront_test

import (
	"testing"
)

// TestCharTypeCasts: a cast to the one-byte type "char" is that type
// (sql/exec typed 'x'::"char" as bpchar), a number cast to or from it is
// its byte (the flat planner printed 1::"char" as the text 1, where
// PostgreSQL answers the byte 0x01), and a cast to a type PostgreSQL has
// but sidecar does not carry is refused with 0A000 naming it (it was
// 42704 "type inet does not exist"); format_type and regtype name
// bpchar as PostgreSQL does.
func TestCharTypeCasts(t *testing.T) {
	r := newRig(t, []string{"public.c"}, []string{
		"CREATE TABLE c (id int PRIMARY KEY, ch \"char\", s text)",
		"INSERT INTO c VALUES (1, 'a', 'xyz'), (2, 'B', ''), (3, NULL, 'q'), (65, '7', 'héllo')",
	})
	psqlRig(r).same(t,
		`SELECT 'x'::"char", 'orders'::text::"char", pg_typeof('x'::"char")`,
		`SELECT id::"char", ch::int, ch::text, s::"char", (id + 1)::"char" FROM c WHERE id < 4 ORDER BY id`,
		`SELECT id::"char" FROM c ORDER BY id`,
		`SELECT ('a'::"char")::int, (-1)::"char"::int, 65::"char", 'A'::"char"::text`,
		`SELECT 'a'::char, 'abc'::char(2), 'a'::character, pg_typeof('a'::char)`,
		`SELECT ch, count(*) FROM c GROUP BY ch ORDER BY ch`,
		// format_type(1042, NULL) and regtype print "character", a
		// typmod of -1 given "bpchar" (sidecar had them swapped).
		`SELECT format_type(1042, NULL), format_type(1042, -1), format_type(1042, 5), 1042::regtype, pg_typeof(s::char(2))::text FROM c WHERE id = 1`,
		// inet and cidr are types of the catalog now (they were the
		// example of a refused cast).
		`SELECT inet '1.2.3.4', '10/8'::cidr, pg_typeof(inet '::1')`,
		// money and the bit strings too (session 18).
		`SELECT '1'::money, id::bit(3) FROM c ORDER BY id`,
	)
	psqlRig(r).refused(t, nil, `SELECT point '(1,2)'`, `SELECT now()::timetz`)
}
