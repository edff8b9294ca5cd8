package sqlfront_test

import "testing"

// TestBpcharVarcharCompare: character(n) compared with character varying
// resolves to bpchar's operators in PostgreSQL (no varchar operator; of
// the candidates bpchar = bpchar matches an operand exactly), so trailing
// blanks do not count. Both paths compared them as text: `c = v`, `c < v`,
// joins, IN and CASE answered other rows (issue 21; found by randwide seed
// 1796543353616128463 in CI).
func TestBpcharVarcharCompare(t *testing.T) {
	r := newRig(t, []string{"public.w"}, []string{
		"CREATE TABLE w (id int PRIMARY KEY, c char(4), g text, v varchar(8))",
		"INSERT INTO w VALUES (1, 'x', 'x ', NULL), (2, 'ab', 'ab', 'ab '), (3, 'x', 'x', 'x '), (4, 'AB', 'x ', 'z'), (5, NULL, NULL, 'x')",
	})
	catalogCompare(t, r, []string{
		"SELECT id FROM w WHERE c >= g::varchar(3) ORDER BY id",
		"SELECT DISTINCT id FROM w WHERE c >= g::varchar(3) ORDER BY id",
		"SELECT id FROM w WHERE c = v ORDER BY id",
		"SELECT id FROM w WHERE v = c ORDER BY id",
		"SELECT id FROM w WHERE c < v ORDER BY id",
		"SELECT id, c = v, c >= v, v <= c, c = g::varchar, c::varchar = g, c = g FROM w ORDER BY id",
		"SELECT id FROM w WHERE c IN (v, 'q') ORDER BY id",
		"SELECT id FROM w WHERE c NOT IN (v, 'q') ORDER BY id",
		"SELECT count(*) FROM w a JOIN w b ON a.c = b.v",
		"SELECT id FROM w WHERE c = 'x '::varchar ORDER BY id",
		"SELECT CASE WHEN c = v THEN 1 ELSE 0 END FROM w ORDER BY id",
		"SELECT count(*) FROM (SELECT c, v FROM w) s WHERE c = v",
	}, nil)
}
