-- Planner features behind the regression corpus's refusals (issue 22),
-- compared with PostgreSQL row for row. Row order is not compared, so
-- the ORDER BY statements carry a LIMIT that makes the set depend on it.
-- ORDER BY … USING < / > (NULLs last under <, first under >).
SELECT id, i2 FROM nums ORDER BY i2 USING < LIMIT 4;
SELECT id, i2 FROM nums ORDER BY i2 USING > LIMIT 2;
SELECT id, i2 FROM nums ORDER BY i2 USING > NULLS LAST LIMIT 2;
SELECT id, s FROM nums ORDER BY s USING OPERATOR(pg_catalog.<) LIMIT 2;
SELECT id, s FROM nums ORDER BY 2 USING > LIMIT 2;
SELECT id, s AS z FROM nums ORDER BY z USING >, id USING < LIMIT 3;
SELECT id, k, row_number() OVER (ORDER BY k USING >, id USING <) FROM w;
SELECT id, k FROM w ORDER BY k USING >= LIMIT 2;
-- Untyped literals in a set operation's branches take the operation's
-- column type (PostgreSQL resolves them across the branches).
SELECT id, i2 FROM nums UNION ALL SELECT NULL, 42 UNION ALL SELECT NULL, 43;
SELECT NULL UNION SELECT 1;
SELECT '7' UNION SELECT 1;
SELECT 'x' UNION SELECT 1;
SELECT NULL UNION SELECT NULL;
SELECT NULL UNION SELECT NULL UNION SELECT 1;
SELECT NULL AS a, 'b' AS b UNION ALL SELECT 1.5, 'c' EXCEPT SELECT 2, NULL;
(SELECT 'a' LIMIT 1) UNION SELECT 'b'::varchar(3);
SELECT * FROM (SELECT NULL AS n, 'z' AS s) q UNION SELECT 3, 'y';
SELECT x, y, sum(y) OVER (ORDER BY x NULLS FIRST) FROM (SELECT id AS x, k AS y FROM w WHERE id < 4 UNION ALL SELECT NULL, 42 UNION ALL SELECT NULL, 43) ss;
SELECT d, count(*) FROM (SELECT d FROM nums UNION ALL SELECT NULL UNION ALL SELECT '1.50') u GROUP BY d;
-- INTERSECT answers the copy of the side PostgreSQL's planner puts first
-- (fewer groups): equal values printed differently are refused.
SELECT c FROM nums INTERSECT SELECT 'a' /* refused: equal values printed differently */;
SELECT c FROM nums INTERSECT SELECT 'a'::bpchar /* refused: equal values printed differently */;
SELECT 1.0 INTERSECT SELECT 1.00 /* refused: equal values printed differently */;
SELECT 1.00 INTERSECT SELECT 1.0 /* refused: equal values printed differently */;
SELECT d FROM nums INTERSECT SELECT 1.5 /* refused: equal values printed differently */;
SELECT 1.5 INTERSECT SELECT d FROM nums /* refused: equal values printed differently */;
SELECT d FROM nums INTERSECT ALL SELECT 1.50;
SELECT d FROM nums EXCEPT SELECT 1.5;
SELECT i2::numeric FROM nums INTERSECT SELECT i8 / 10.0 FROM nums /* refused: equal values printed differently */;
