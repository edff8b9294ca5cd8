-- bytea on sql/exec compared with PostgreSQL: literals in both input
-- formats, ||, LIKE (with ESCAPE), comparisons, ordering, grouping and
-- the functions of sql/builtin/bytea.go over rows.
SELECT E'\\xDeAdBeEf'::bytea, E'\\x De Ad Be Ef '::bytea, E'\\xDe00BeEf'::bytea, E'DeAdBeEf'::bytea, E'De\\000dBeEf'::bytea, E'De\123dBeEf'::bytea, E'De\\123dBeEf'::bytea;
SELECT E'\\xDeAdBeE'::bytea;
SELECT E'\\xDeAdBeEx'::bytea;
SELECT E'De\\678dBeEf'::bytea;
SELECT 'abc'::bytea LIKE '_b_'::bytea AS "true", 'abc'::bytea NOT LIKE '_b_' AS "false", 'a_c'::bytea LIKE 'a$__'::bytea ESCAPE '$'::bytea, 'a_c'::bytea NOT LIKE 'a$__'::bytea ESCAPE '$'::bytea;
SELECT 'ab\\'::bytea LIKE 'ab\\'::bytea;
SELECT 'abc'::bytea LIKE 'abc'::bytea ESCAPE 'xy'::bytea;
SELECT 'abc'::bytea ILIKE 'abc'::bytea;
SELECT 'abc'::bytea LIKE 'abc'::text;
SELECT b, b || '\x00'::bytea, '\xff'::bytea || b, b || 'z', b < '\x62'::bytea, b >= 'b', b = '\x616263'::bytea, b <> 'abc', length(b), octet_length(b), md5(b), encode(b, 'escape'), encode(b, 'base64'), position('b'::bytea in b), substring(b from 2), substring(b from 2 for 1), substr(b, 0, 2), btrim(b, 'a'::bytea), get_byte(b, 0), bit_count(b), sha256(b)
  FROM (VALUES ('abc'::bytea), ('\x00ff'::bytea), (''::bytea), ('a\\b'::bytea), (NULL::bytea), ('\x616263'::bytea)) v(b) WHERE length(b) > 0 OR b IS NULL;
SELECT b FROM (VALUES ('abc'::bytea), ('\x00ff'::bytea), (''::bytea), ('ab'::bytea), ('\xff'::bytea), (NULL)) v(b) ORDER BY b;
SELECT b, count(*) FROM (VALUES ('abc'::bytea), ('\x616263'::bytea), (''::bytea), ('\x'::bytea), (NULL)) v(b) GROUP BY b ORDER BY b;
SELECT DISTINCT b FROM (VALUES ('abc'::bytea), ('\x616263'::bytea), ('x'::bytea)) v(b) ORDER BY 1 DESC;
SELECT encode('\x1234567890abcdef00', 'hex'), decode('1234567890abcdef00', 'hex'), encode(('\x' || repeat('1234567890abcdef0001', 7))::bytea, 'base64');
SELECT decode(encode(('\x' || repeat('1234567890abcdef0001', 7))::bytea, 'base64'), 'base64');
SELECT encode('\x1234567890abcdef00', 'escape'), decode(encode('\x1234567890abcdef00', 'escape'), 'escape');
SELECT decode('12x', 'hex');
SELECT encode('\x00', 'rot13');
SELECT get_bit('\x1234567890abcdef00'::bytea, 43), set_bit('\x1234567890abcdef00'::bytea, 43, 0), get_byte('\x1234567890abcdef00'::bytea, 3), set_byte('\x1234567890abcdef00'::bytea, 7, 11);
SELECT get_bit('\x1234567890abcdef00'::bytea, 99);
SELECT set_byte('\x1234567890abcdef00'::bytea, 99, 11);
SELECT SUBSTRING('1234567890'::bytea FROM 3) "34567890", SUBSTRING('string'::bytea FROM 2 FOR 2147483646) AS "tring", SUBSTRING('string'::bytea FROM -10 FOR 2147483646) AS "string";
SELECT SUBSTRING('string'::bytea FROM -10 FOR -2147483646) AS "fails";
SELECT trim(E'\\000'::bytea from E'\\000Tom\\000'::bytea), trim(leading E'\\000'::bytea from E'\\000Tom\\000'::bytea), trim(trailing E'\\000'::bytea from E'\\000Tom\\000'::bytea), btrim(''::bytea, E'\\000'::bytea), btrim(E'\\000trim\\000'::bytea, ''::bytea);
SELECT encode(overlay(E'Th\\000omas'::bytea placing E'Th\\001omas'::bytea from 2),'escape'), encode(overlay(E'Th\\000omas'::bytea placing E'\\002\\003'::bytea from 8),'escape'), encode(overlay(E'Th\\000omas'::bytea placing E'\\002\\003'::bytea from 5 for 3),'escape');
SELECT bit_count('\x1234567890'::bytea), sha224('abc'::bytea), sha384(''::bytea), sha512('\x00'::bytea), md5('abc'::bytea) = '900150983cd24fb0d6963f7d28e17f72' AS "TRUE";
SELECT n, b FROM (VALUES (1, 'abc'::bytea), (2, 'abd'::bytea), (3, NULL)) v(n, b) WHERE b LIKE '%c' OR b > 'abc'::bytea ORDER BY n;
