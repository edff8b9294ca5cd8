package sqlfront_test

import "testing"

// TestBpcharLengths: octet_length and bit_length of character(n) count
// the padding (PostgreSQL's bpcharoctetlen is the stored size), while
// length/char_length do not; || and comparisons strip or keep the
// blanks as PostgreSQL does. octet_length(character) was refused
// (issue 21).
func TestBpcharLengths(t *testing.T) {
	r := newRig(t, []string{"public.bp"}, []string{
		"CREATE TABLE bp (id int PRIMARY KEY, c char(5), d character(3), e bpchar, v varchar(6))",
		"INSERT INTO bp VALUES (1, 'ab', 'x', 'ab  ', 'ab '), (2, '', '', '', ''), (3, 'abcde', 'é', 'é ', 'é'), (4, NULL, NULL, NULL, NULL), (5, ' a', 'a b', ' ', ' ')",
	})
	catalogCompare(t, r, []string{
		"SELECT id, octet_length(c), char_length(c), length(c), bit_length(c), character_length(c) FROM bp ORDER BY id",
		"SELECT id, octet_length(d), length(d), bit_length(d), octet_length(e), length(e), bit_length(e) FROM bp ORDER BY id",
		"SELECT id, octet_length(v), length(v), bit_length(v) FROM bp ORDER BY id",
		"SELECT octet_length('ab'::char(5)), char_length('ab'::char(5)), bit_length('ab'::char(5)), length('ab'::char(5))",
		"SELECT octet_length('ab  '::bpchar), length('ab  '::bpchar), octet_length('é'::char(3)), bit_length('é'::char(3))",
		"SELECT id, c || '|', c || d, d || v, c::text || '|', c::varchar || '|', '|' || c FROM bp ORDER BY id",
		"SELECT id, octet_length(c || 'x'), octet_length(c::text), octet_length(c::varchar), octet_length(c::char(7)), octet_length(c::char(2)) FROM bp ORDER BY id",
		"SELECT id FROM bp WHERE c = 'ab' ORDER BY id",
		"SELECT id FROM bp WHERE c = 'ab   ' ORDER BY id",
		"SELECT id FROM bp WHERE c < 'ab ' ORDER BY id",
		"SELECT id, c = d, c < d, c = e, e = ' ', c LIKE 'ab%', c LIKE 'ab', d LIKE '%x' FROM bp ORDER BY id",
		"SELECT id, c > v, v = e::varchar FROM bp ORDER BY id",
		"SELECT sum(octet_length(c)), sum(bit_length(d)), max(octet_length(e)) FROM bp",
		"SELECT id, upper(c) || '|', lower(d) || '|', substr(c, 2) || '|', rtrim(c) || '|' FROM bp ORDER BY id",
		"SELECT id, position('b' in c), strpos(d, ' '), replace(c, ' ', '_'), concat(c, '|'), format('%s|', c) FROM bp ORDER BY id",
		"SELECT id, length(c::text), octet_length(concat(c)), md5(c) FROM bp ORDER BY id",
		"SELECT c, count(*) FROM bp GROUP BY c ORDER BY c",
		"SELECT DISTINCT octet_length(c) FROM bp ORDER BY 1",
	}, nil)
}
