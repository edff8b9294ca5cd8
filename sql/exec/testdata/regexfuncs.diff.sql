-- regexp_count, regexp_instr, regexp_substr, regexp_match,
-- regexp_split_to_array and regexp_replace (with start, N, flags and
-- back-references) compared with PostgreSQL 15: the matching loop
-- (empty matches, '^' after the start), positions in characters,
-- optional arguments out of range (22023), 'g' refused where
-- PostgreSQL refuses it, NULL arguments, patterns over columns.
SELECT regexp_count('123123123123123', '(12)3'), regexp_count('123123123123', '123', 1), regexp_count('123123123123', '123', 3), regexp_count('123123123123', '123', 33);
SELECT regexp_count('ABCABCABCABC', 'Abc', 1, ''), regexp_count('ABCABCABCABC', 'Abc', 1, 'i'), regexp_count('abc', ''), regexp_count('abc', 'x*'), regexp_count('', 'x*'), regexp_count('aaa', '^a');
SELECT regexp_count('abc', 'b', 0);
SELECT regexp_count('abc', 'b', 1, 'g');
SELECT regexp_count('abc', 'b', 1, 'z');
SELECT regexp_count(NULL, 'b'), regexp_count('abc', NULL), regexp_count('abc', 'b', NULL);
SELECT regexp_instr('abcdefghi', 'd.f'), regexp_instr('abcdefghi', 'd.q'), regexp_instr('abcabcabc', 'a.c'), regexp_instr('abcabcabc', 'a.c', 2), regexp_instr('abcabcabc', 'a.c', 1, 3), regexp_instr('abcabcabc', 'a.c', 1, 4), regexp_instr('abcabcabc', 'A.C', 1, 2, 0, 'i');
SELECT regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 0, 'i', 0), regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 0, 'i', 2), regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 1, 'i', 3), regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 1, 'i', 5);
SELECT regexp_instr('foo', 'foo(bar)?', 1, 1, 0, '', 1), regexp_instr('abc', 'b', 1, 1, 0, '', 1), regexp_instr('abc', 'b', 1, 1, 1, '', 2), regexp_instr('héllo wörld', 'ö'), regexp_instr('héllo wörld', 'l+', 1, 2, 1);
SELECT regexp_instr('abc', 'b', 1, 0);
SELECT regexp_instr('abc', 'b', 1, 1, 2);
SELECT regexp_instr('abc', 'b', 1, 1, 0, '', -1);
SELECT regexp_instr('abc', 'b', 1, 1, 0, 'g');
SELECT regexp_substr('abcdefghi', 'd.f'), regexp_substr('abcdefghi', 'd.q') IS NULL, regexp_substr('abcabcabc', 'a.c', 2), regexp_substr('abcabcabc', 'a.c', 1, 3), regexp_substr('abcabcabc', 'a.c', 1, 4) IS NULL, regexp_substr('abcabcabc', 'A.C', 1, 2, 'i');
SELECT regexp_substr('1234567890', '(123)(4(56)(78))', 1, 1, 'i', 0), regexp_substr('1234567890', '(123)(4(56)(78))', 1, 1, 'i', 2), regexp_substr('1234567890', '(123)(4(56)(78))', 1, 1, 'i', 4), regexp_substr('1234567890', '(123)(4(56)(78))', 1, 1, 'i', 5) IS NULL, regexp_substr('foo', 'foo(bar)?', 1, 1, '', 1) IS NULL;
SELECT regexp_substr('héllo wörld', 'w.r'), regexp_substr('aXbXc', 'X', 3), regexp_substr('abc', '^b', 2) IS NULL;
SELECT regexp_substr('abc', 'a|b', 1, 1, '', 1);
SELECT regexp_match('foobarbequebaz', 'bar.*que'), regexp_match('foobarbequebaz', 'bar.*que$'), regexp_match('foobarbequebaz', '(bar)(beque)'), regexp_match('foObARbEqUEbAz', '(bar)(beque)', 'i'), regexp_match('foobarbequebaz', '(bar)(.*)(beque)'), regexp_match('abc', 'x(y)?');
SELECT regexp_match('abc', 'b', 'g');
SELECT regexp_match('abc', '(b)?c'), regexp_match('xyz', '(a)?z'), regexp_match('', ''), regexp_match('abc', '');
SELECT regexp_split_to_array('the quick brown fox', ' +'), regexp_split_to_array('the quick brown fox', ' *'), regexp_split_to_array('abc', ''), regexp_split_to_array('', 'x'), regexp_split_to_array('', ''), regexp_split_to_array('xAxbx', 'X', 'i'), regexp_split_to_array('aXbX', 'X');
SELECT regexp_split_to_array('abc', 'b', 'g');
SELECT regexp_replace('A PostgreSQL function', 'A|e|i|o|u', 'X', 1), regexp_replace('A PostgreSQL function', 'A|e|i|o|u', 'X', 1, 2), regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 0, 'i'), regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 3, 'i'), regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 9, 'i'), regexp_replace('A PostgreSQL function', 'A|e|i|o|u', 'X', 7, 0, 'i'), regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 1, 'g');
SELECT regexp_replace('AAA', '^|$', 'Z', 'g'), regexp_replace('AAA BBB', 'A*', 'Z', 'g'), regexp_replace('abc', 'x*', '-', 'g'), regexp_replace('abc', '', '-'), regexp_replace('aaa', '^a', 'b', 'g'), regexp_replace('aaa', '^a', 'b', 2);
SELECT regexp_replace('1112223333', '([0-9]{3})([0-9]{3})([0-9]{4})', '(\1) \2-\3'), regexp_replace('foobarrbazz', 'r+', 'X\&Y', 'g'), regexp_replace('foobar', 'o', 'X\\Y', 'g'), regexp_replace('foobar', 'b', 'X\Y\9Z\'), regexp_replace('abc', 'b', '[\&]');
SELECT regexp_replace('abc', 'b', 'x', 0);
SELECT regexp_replace('abc', 'b', 'x', 1, -1);
SELECT regexp_replace(NULL, 'b', 'x', 1), regexp_replace('abc', 'b', NULL, 1, 1), regexp_replace('abc', 'b', 'x', 1, 1, NULL);
SELECT s, regexp_count(s, '[a-d]'), regexp_instr(s, '[a-d]', 1, 2), regexp_substr(s, '.$'), regexp_match(s, '^(.)(.*)$'), regexp_split_to_array(v, 'b'), regexp_replace(s, '[aeiou]', '*', 1, 0, 'i') FROM nums;
SELECT regexp_matches('foobarbequebaz', '(bar)(beque)');
SELECT regexp_matches('foObARbEqUEbAz', '(bar)(beque)', 'i');
SELECT regexp_matches('foobarbequebazilbarfbonk', '(b[^b]+)(b[^b]+)', 'g');
SELECT regexp_matches('foobarbequebaz', '(bar)(.*)(beque)'), regexp_matches('foobarbequebaz', 'barbeque');
SELECT regexp_matches('abc', 'x');
SELECT regexp_matches('abcabc', 'b*', 'g');
SELECT regexp_matches('abc', 'b', 'z');
SELECT m, count(*) FROM nums, regexp_matches(s, '[a-z]', 'gi') AS m GROUP BY m;
SELECT id, regexp_matches(v, '(b)', 'g') FROM nums;
SELECT foo, length(foo) FROM regexp_split_to_table('the quick brown fox jumps', ' +') AS foo;
SELECT foo, length(foo) FROM regexp_split_to_table('the quick', ' *') AS foo;
SELECT foo FROM regexp_split_to_table('thE QUick bROWn', 'e', 'i') AS foo;
SELECT * FROM regexp_split_to_table('abc', '') WITH ORDINALITY;
SELECT * FROM regexp_split_to_table('', 'x');
SELECT * FROM regexp_split_to_table(NULL, 'x');
SELECT * FROM regexp_split_to_table('abc', 'b', 'g');
SELECT id, regexp_split_to_table(v, '') FROM nums;
SELECT regexp_split_to_table(1, 'x');
SELECT 'abcdefg' SIMILAR TO '_bcd%', 'abcdefg' SIMILAR TO 'bcd%', 'abcdefg' SIMILAR TO '_bcd#%' ESCAPE '#', 'abcd%' SIMILAR TO '_bcd#%' ESCAPE '#', 'abcdefg' SIMILAR TO '_bcd\%', 'abcd\efg' SIMILAR TO '_bcd\%' ESCAPE '', 'abcdefg' SIMILAR TO '_bcd%' ESCAPE NULL;
SELECT 'abc' SIMILAR TO 'a|b%', 'abababc' SIMILAR TO '(ab)*c', 'ab' NOT SIMILAR TO 'a_', 'a.b' SIMILAR TO 'a.b', 'axb' SIMILAR TO 'a.b', 'a^b$' SIMILAR TO 'a^b$', 'xx' SIMILAR TO 'x{2}', 'b' SIMILAR TO '[a-c]', '' SIMILAR TO '', 'héllo' SIMILAR TO 'h_llo';
SELECT s, s SIMILAR TO '[a-c]%', v NOT SIMILAR TO '%b', s SIMILAR TO v FROM nums;
SELECT 'abc' SIMILAR TO 'a' ESCAPE 'xy';
SELECT 'abc' SIMILAR TO 'a#"b#"c#"d' ESCAPE '#';
SELECT similar_to_escape('a%b_c(d)'), similar_to_escape('a#%', '#'), similar_to_escape('x', '');
-- Class escapes, flags and embedded options (sql/builtin/regexopts.go),
-- substring FROM a pattern and SIMILAR … ESCAPE.
SELECT regexp_replace('x1 y22 z333', '\d+', '#', 'g'), regexp_match('ab_1 x', '(?x) \w+ '), regexp_count(E'a\tb c', '\s'), regexp_split_to_array('a1b22c', '\d+'), 'abc123' ~ '^\w+\d$';
SELECT regexp_replace(E'ab\ncd\nef', '^', '>', 'gn'), regexp_replace(E'ab\ncd', '.$', '!', 'gw'), regexp_match(E'a\nb', 'a.b', 'p'), regexp_match('a.b', '.', 'q'), regexp_match('aXb', '***=a.b');
SELECT s, regexp_replace(s, '[^\d]', '', 'g'), s ~ '\W', substring(s FROM '\d+'), substring(s FROM '(.)$') FROM nums;
SELECT substring('foobar' FROM 'o(.)b'), substring('foobar' FROM 'x'), substring('foobar' SIMILAR '%b_r' ESCAPE '#'), substring('foobar' SIMILAR 'f%' ESCAPE '#'), substring('foobar' SIMILAR 'x%' ESCAPE '#');
SELECT substring('foobar' SIMILAR '%#"o_b#"%' ESCAPE '#'), substring('foobar' SIMILAR 'f#"%#"r' ESCAPE '#');
SELECT regexp_match('héllo', '\w+') /* refused: class escapes follow the locale */;
