-- A constant in ORDER BY / DISTINCT ON is a position when it is an
-- integer and an error (42601) otherwise; an untyped CASE test
-- expression is text. Before, DISTINCT ON (false) and ORDER BY 'a'
-- were answered (ordered by the value) and CASE NULL WHEN 1.5::float8
-- answered NULL where PostgreSQL fails (TestRandomQueries seeds 1, 2).
-- Before 15 TRUE/FALSE are no constants there but expressions (14's
-- grammar made them casts): DISTINCT ON (false) must match the ORDER BY
-- (42P10), and with it answers one row; 42601 from 15. Without an ORDER
-- BY, 14's row is its sort's pick (refused).
SELECT DISTINCT ON (false) false, id FROM wd ORDER BY id;
SELECT DISTINCT ON (false) false, id FROM wd ORDER BY false, id;
SELECT id FROM wd ORDER BY false, id;
SELECT count(*) FROM wd GROUP BY true;
SELECT DISTINCT ON (10000000070) 10000000070, id FROM wd ORDER BY 1;
SELECT DISTINCT ON (1) id % 3, id FROM wd ORDER BY 1, 2;
SELECT id FROM wd ORDER BY 'a';
SELECT id FROM wd ORDER BY 1.5;
SELECT id FROM wd ORDER BY NULL;
SELECT id FROM wd ORDER BY 2;
SELECT CASE NULL WHEN 1.5::float8 THEN 1 END FROM wd;
SELECT CASE NULL WHEN 'x' THEN 1 ELSE 2 END FROM wd;
SELECT CASE 'a' WHEN 'a' THEN 1 ELSE 0 END, CASE NULL WHEN NULL THEN 1 ELSE 0 END;
SELECT CASE 'a' WHEN 'a'::char(3) THEN 1 ELSE 0 END;
SELECT DISTINCT ON (3) id, d FROM wd;
SELECT id FROM wd ORDER BY 0;
SELECT count(*) FROM wd GROUP BY 'a';
SELECT id % 2, count(*) FROM wd GROUP BY 5;
SELECT id % 2, count(*) FROM wd GROUP BY 1;
-- A strict operator with a NULL constant argument is NULL without its
-- other argument being computed (eval_const_expressions): before, the
-- overflowing product failed the statement with 22003 (TestRandomQueries
-- seed 201).
SELECT id FROM wd WHERE NOT ((id * 2000000000) <> NULL);
SELECT id, (id * 2000000000) + NULL, NULL::int4 * (id * 2000000000) FROM wd;
SELECT count(*) FROM wd WHERE (id * 2000000000 > 5) IS NULL;
SELECT count(*) FROM wd WHERE id * 2000000000 IS DISTINCT FROM NULL;
-- An immutable expression of constants is evaluated while planning, so
-- its error fails the statement though no row reaches it (seed 201:
-- answered 0 rows where PostgreSQL fails with 22008). This harness's
-- library knows no major, and age() of an infinite timestamp differs by
-- major (17 answers it): refused while planning here, PostgreSQL's error
-- through the port (internal/sqldiff randQueryCases); 0 rows before.
SELECT date '2026-01-28' + age(timestamp 'infinity', timestamp '2026-01-01') FROM wd WHERE id < 0 ORDER BY 1 /* refused: the major decides age(infinity) */;
SELECT id FROM wd WHERE id < 0 AND ts < date '2026-01-28' + age(timestamp 'infinity', timestamp '2026-01-01') /* refused: the major decides age(infinity) */;
