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
-- Row comparisons with a subquery: (a, b) [NOT] IN (SELECT x, y …),
-- three-valued (a NULL column makes an unmatched row unknown).
SELECT name, n FROM t2 WHERE (name, n) IN (SELECT name, n + 10 FROM t3);
SELECT name, n FROM t2 WHERE (name, n) NOT IN (SELECT name, n + 10 FROM t3);
SELECT id, (i2, s) IN (SELECT i2, s FROM nums WHERE id <> 2) FROM nums;
SELECT id, (i2, s) NOT IN (SELECT i2, s FROM nums WHERE id <> 2) FROM nums;
SELECT id, (i2, 'zz') IN (SELECT i2, s FROM nums) FROM nums;
SELECT id, (i8, d) IN (SELECT i2, f FROM nums) FROM nums;
SELECT id FROM nums WHERE (id, i2) IN (VALUES (1, 1), (2, 0), (4, 4), (3, NULL));
SELECT id FROM nums o WHERE (id, s) IN (SELECT i.id, i.s FROM nums i WHERE i.id < o.id + 2);
SELECT id, (id, id) IN (SELECT id, id FROM nums WHERE false) FROM nums;
SELECT id FROM nums WHERE (id, i2) IN (SELECT 1);
SELECT id FROM nums WHERE (id, i2) IN (SELECT 1, 2, 3);
SELECT id FROM nums WHERE (id, i2) < ANY (SELECT 1, 2) /* refused: row ordering */;
-- FETCH FIRST n ROWS WITH TIES: the rows tied with the n-th on the ORDER BY keys.
SELECT id, k FROM w ORDER BY k FETCH FIRST 2 ROWS WITH TIES;
SELECT id, k FROM w ORDER BY k FETCH FIRST 1 ROW WITH TIES;
SELECT id, k FROM w ORDER BY k FETCH FIRST ROWS WITH TIES;
SELECT id, k FROM w ORDER BY k DESC NULLS FIRST FETCH FIRST 2 ROWS WITH TIES;
SELECT id, k FROM w ORDER BY k NULLS FIRST FETCH FIRST 1 ROWS WITH TIES;
SELECT grp, k FROM w ORDER BY grp, k FETCH FIRST 3 ROWS WITH TIES;
SELECT k FROM w ORDER BY k OFFSET 3 ROWS FETCH FIRST 2 ROWS WITH TIES;
SELECT id, k FROM w ORDER BY k FETCH FIRST 0 ROWS WITH TIES;
SELECT id, k FROM w ORDER BY k FETCH FIRST 100 ROWS WITH TIES;
SELECT id, k FROM w ORDER BY k FETCH FIRST (NULL + 1) ROWS WITH TIES;
SELECT k, count(*) FROM w GROUP BY k ORDER BY count(*) DESC FETCH FIRST 1 ROWS WITH TIES;
SELECT DISTINCT k FROM w ORDER BY k FETCH FIRST 2 ROWS WITH TIES;
-- JOIN … USING (…) AS x: x qualifies the merged columns alone.
SELECT * FROM t1 JOIN t2 USING (name) AS x WHERE t1.n = 11;
SELECT * FROM t2 JOIN t3 USING (name) AS x WHERE x.name = 'cc';
SELECT x.* FROM t2 LEFT JOIN t3 USING (name) AS x;
SELECT x.name, t3.n FROM t2 FULL JOIN t3 USING (name) AS x;
SELECT * FROM t2 JOIN t3 USING (name) AS x WHERE x.n = 12;
SELECT * FROM t2 a JOIN t3 b USING (name) AS a;
SELECT * FROM (t2 JOIN t3 USING (name) AS x) AS xx WHERE x.name = 'cc';
SELECT x.name FROM t2 JOIN t3 USING (name) AS x JOIN t1 USING (name) AS y;
-- RANGE offset frames over numeric ±Infinity and NaN (in_range_numeric).
SELECT id, n, first_value(id) OVER w, last_value(id) OVER w, count(*) OVER w FROM (VALUES (0, '-infinity'::numeric), (1, -1000), (2, -1), (3, 0), (4, 1), (5, 1.1), (6, 2), (7, 1000), (8, 'infinity'), (10, 'NaN'), (11, NULL)) v(id, n) WINDOW w AS (ORDER BY n RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING);
SELECT id, n, first_value(id) OVER w, last_value(id) OVER w, count(*) OVER w FROM (VALUES (0, '-infinity'::numeric), (1, -1000), (2, -1), (3, 0), (4, 1), (5, 1.1), (6, 2), (7, 1000), (8, 'infinity'), (10, 'NaN'), (11, NULL)) v(id, n) WINDOW w AS (ORDER BY n RANGE BETWEEN 'inf' PRECEDING AND 'inf' FOLLOWING);
SELECT id, n, first_value(id) OVER w, last_value(id) OVER w, count(*) OVER w FROM (VALUES (0, '-infinity'::numeric), (1, -1000), (2, -1), (3, 0), (4, 1), (5, 1.1), (6, 2), (7, 1000), (8, 'infinity'), (10, 'NaN'), (11, NULL)) v(id, n) WINDOW w AS (ORDER BY n RANGE BETWEEN 'inf' PRECEDING AND 'inf' PRECEDING);
SELECT id, n, first_value(id) OVER w, last_value(id) OVER w, count(*) OVER w FROM (VALUES (0, '-infinity'::numeric), (1, -1000), (2, -1), (3, 0), (4, 1), (5, 1.1), (6, 2), (7, 1000), (8, 'infinity'), (10, 'NaN'), (11, NULL)) v(id, n) WINDOW w AS (ORDER BY n RANGE BETWEEN 'inf' FOLLOWING AND 'inf' FOLLOWING);
SELECT id, n, first_value(id) OVER w, last_value(id) OVER w, count(*) OVER w FROM (VALUES (0, '-infinity'::numeric), (1, -1000), (2, -1), (3, 0), (4, 1), (5, 1.1), (6, 2), (7, 1000), (8, 'infinity'), (10, 'NaN'), (11, NULL)) v(id, n) WINDOW w AS (ORDER BY n DESC RANGE BETWEEN 1.5 PRECEDING AND 'inf' FOLLOWING);
SELECT id, n, first_value(id) OVER w, last_value(id) OVER w, count(*) OVER w FROM (VALUES (0, '-infinity'::numeric), (1, -1000), (2, -1), (3, 0), (4, 1), (5, 1.1), (6, 2), (7, 1000), (8, 'infinity'), (10, 'NaN'), (11, NULL)) v(id, n) WINDOW w AS (ORDER BY n DESC NULLS LAST RANGE BETWEEN 'inf' PRECEDING AND 0 FOLLOWING);
SELECT id, n, sum(id) OVER (ORDER BY n RANGE BETWEEN CURRENT ROW AND 'inf' FOLLOWING EXCLUDE CURRENT ROW) FROM (VALUES (0, '-infinity'::numeric), (1, -1000), (2, 2), (8, 'infinity'), (10, 'NaN')) v(id, n);
-- NULLIF whose second argument has another type than the first.
SELECT id, NULLIF(f, i2), NULLIF(d, i8), NULLIF(i8, i2), NULLIF(s, c) FROM nums;
SELECT id FROM nums WHERE NULLIF(f, i2) = 1.5;
SELECT id, NULLIF(i2, f) FROM nums /* refused: the first argument is not of the common type */;
-- NULLIF of a narrower integer or float4 against a wider one: PostgreSQL's
-- cross-type = (int24eq, float48eq), the result in the first's type.
SELECT id, NULLIF(i2, id), NULLIF(i2, i8), NULLIF(id, i8), NULLIF(i2, 3::int8), NULLIF(f::float4, f), NULLIF(f::float4, 1.5::float8) FROM nums;
SELECT id FROM nums WHERE NULLIF(i2, id) IS NULL;
-- A WITH of the recursive query itself, seen by both terms.
WITH RECURSIVE t(j) AS (WITH RECURSIVE s(i) AS (VALUES (1) UNION ALL SELECT i + 1 FROM s WHERE i < 10) SELECT i FROM s UNION ALL SELECT j + 1 FROM t WHERE j < 10) SELECT * FROM t;
WITH RECURSIVE t(j) AS (WITH lim AS (SELECT max(id) AS m FROM nums) SELECT 1 UNION ALL SELECT j + 1 FROM t, lim WHERE j < lim.m) SELECT j FROM t;
WITH RECURSIVE t(j) AS (WITH lim AS (SELECT 3 AS m) SELECT 1 UNION ALL SELECT j + 1 FROM t WHERE j < (SELECT m FROM lim)) SELECT j FROM t LIMIT 2;
WITH RECURSIVE t(j) AS (WITH s AS (SELECT id FROM nums) SELECT id FROM s UNION SELECT j + 1 FROM t WHERE j < 7) SELECT j, count(*) FROM t GROUP BY j;
-- WITH RECURSIVE: a query reading one defined after it.
WITH RECURSIVE x(id) AS (SELECT * FROM y UNION ALL SELECT id + 1 FROM x WHERE id < 5), y(id) AS (VALUES (1)) SELECT * FROM x;
WITH RECURSIVE a AS (SELECT * FROM b), b AS (SELECT * FROM c), c AS (SELECT id FROM nums) SELECT count(*) FROM a;
WITH RECURSIVE a AS (SELECT n FROM t2), b AS (SELECT * FROM a UNION ALL SELECT n + 100 FROM b WHERE n < 100) SELECT * FROM b;
WITH RECURSIVE x(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM y WHERE id < 5), y(id) AS (SELECT * FROM x) SELECT * FROM x;
-- A numeric type's cast function called by the type's name.
SELECT id, float8(i8), int4(f), int8(d), float4(i2), int2(d) FROM nums WHERE id <> 4;
SELECT float8(count(*)) / 3 FROM nums;
SELECT int2(i8) FROM nums;
