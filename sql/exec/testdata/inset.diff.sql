-- col [NOT] IN (constants) as a set look-up (inset.go): NULL rows,
-- NOT IN, char(n) with and without trailing blanks, int2/int4/int8,
-- text and varchar, an empty string, a list holding NULL (the general
-- form), in WHERE, in the select list and under a late filter.
SELECT id, c IN ('a', 'dd', 'zz') FROM nums ORDER BY id;
SELECT id, c NOT IN ('a   ', 'dd') FROM nums ORDER BY id;
SELECT id FROM nums WHERE c IN ('b', 'e  ') ORDER BY id;
SELECT id, i2 IN (1, 4, 7), i8 NOT IN (10, 30), id IN (2, 3) FROM nums ORDER BY id;
SELECT id, s IN ('a', 'E', ''), v NOT IN ('bb', 'd') FROM nums ORDER BY id;
SELECT id, s IN ('a', NULL), s NOT IN ('a', NULL) FROM nums ORDER BY id;
SELECT count(*) FROM w WHERE grp IN ('a', 'c') AND k NOT IN (1, 5);
SELECT grp, count(*) FROM w WHERE k IN (1, 2, 3) GROUP BY grp;
SELECT id FROM w WHERE x IN (5, 9, 70) OR grp NOT IN ('a') ORDER BY id;
SELECT id, i8 IN (9223372036854775807, -5) FROM nums ORDER BY id;
