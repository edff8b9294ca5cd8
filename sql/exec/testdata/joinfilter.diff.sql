-- Joins whose output is narrowed to what is read above them
-- (joinneed.go) and whose probe-side scan is filtered by the build
-- side's keys (joinfilter.go; TestDifferentialLate runs this file
-- through a source that applies late filters): key columns read only
-- by the join, by a residual, by a subquery or a window above; NULL
-- keys; keys equal at different scales, blank-padded, -0 and NaN;
-- inner, semi, right, left, full and anti joins; keys converted
-- between types (no filter).
SELECT a.id, b.id FROM w a JOIN w b ON a.k = b.id WHERE b.x = 40;
SELECT a.id, b.id FROM w a JOIN w b ON a.k = b.id WHERE b.x > 5;
SELECT a.grp, b.x FROM w a JOIN w b ON a.k = b.id;
SELECT a.grp, count(*), sum(b.y) FROM w a JOIN w b ON a.k = b.id JOIN w c ON b.k = c.id GROUP BY a.grp;
SELECT c.f FROM w a JOIN w b ON a.k = b.id JOIN w c ON b.k = c.id AND a.x < c.x;
SELECT a.id FROM w a JOIN w b ON a.grp = b.grp AND a.k = b.k WHERE b.id < 4;
SELECT a.id, b.id FROM w a JOIN w b ON a.y = b.y;
SELECT a.id, b.id FROM w a JOIN w b ON a.f = b.f WHERE b.id > 2;
SELECT t1.name, t2.n FROM t1 JOIN t2 ON t1.name = t2.name;
SELECT t2.name, t3.n FROM t2 JOIN t3 ON t2.name = t3.name WHERE t3.n > 0;
SELECT a.id, b.id FROM nums a JOIN nums b ON a.c = b.c WHERE b.id < 3;
SELECT a.id, b.id FROM nums a JOIN nums b ON a.d = b.d;
SELECT a.id, b.id FROM nums a JOIN nums b ON a.f = b.f;
SELECT a.id, b.id FROM nums a JOIN nums b ON a.dt = b.dt WHERE b.b;
SELECT a.id, b.id FROM nums a JOIN nums b ON a.v = b.s;
SELECT a.id, b.id FROM nums a JOIN nums b ON a.i8 = b.id;
SELECT a.id, b.id FROM nums a JOIN nums b ON a.i2 = b.i8 WHERE b.id < 3;
SELECT a.id FROM w a WHERE a.k IN (SELECT id FROM w WHERE x > 15);
SELECT a.id FROM w a WHERE EXISTS (SELECT 1 FROM w b WHERE b.id = a.k AND b.x > a.x);
SELECT a.id FROM w a WHERE NOT EXISTS (SELECT 1 FROM w b WHERE b.id = a.k AND b.x > 15);
SELECT a.id, b.id FROM w a RIGHT JOIN w b ON a.k = b.id WHERE b.x IS NOT NULL;
SELECT b.grp FROM w a RIGHT JOIN w b ON a.k = b.id;
SELECT a.id, b.id FROM w a LEFT JOIN w b ON a.k = b.id AND b.x > 15;
SELECT a.grp, b.grp FROM w a FULL JOIN w b ON a.k = b.id AND b.x > 15;
SELECT a.id, row_number() OVER (PARTITION BY b.grp ORDER BY a.id) FROM w a JOIN w b ON a.k = b.id;
SELECT DISTINCT a.grp FROM w a JOIN w b ON a.k = b.id;
SELECT a.grp FROM w a JOIN w b ON a.k = b.id UNION SELECT b.grp FROM w a JOIN w b ON a.id = b.k;
SELECT a.id FROM w a JOIN w b ON a.k = b.id WHERE EXISTS (SELECT 1 FROM w c WHERE c.id = b.k AND c.x > 5);
SELECT a.id, (SELECT max(c.x) FROM w c WHERE c.k = b.k) FROM w a JOIN w b ON a.k = b.id;
SELECT a.id, b.k * 2 FROM w a JOIN w b ON a.k = b.id ORDER BY b.x, a.id LIMIT 3;
SELECT s.g FROM (SELECT a.grp AS g, b.x FROM w a JOIN w b ON a.k = b.id) s WHERE s.x > 5;
SELECT a.id, b.id FROM w a JOIN w b ON a.k = b.id WHERE a.id IN (SELECT id FROM w WHERE x > 15);
SELECT a.id, b.id FROM w a JOIN w b ON a.k = b.id WHERE b.id IN (SELECT k FROM w WHERE x > 15);
SELECT a.id, b.id, c.id FROM w a JOIN w b ON a.k = b.id JOIN w c ON c.k = b.k WHERE c.id IN (SELECT k FROM w GROUP BY k HAVING count(*) > 1);
SELECT a.id FROM w a JOIN w b ON a.k = b.id WHERE NOT EXISTS (SELECT 1 FROM w c WHERE c.id = a.id AND c.x > 15) AND a.id IN (SELECT id FROM w WHERE grp = 'a');
SELECT a.id, b.id FROM w a LEFT JOIN w b ON a.k = b.id WHERE a.id IN (SELECT id FROM w WHERE x > 15);
SELECT a.id, b.id FROM w a LEFT JOIN w b ON a.k = b.id WHERE b.id IN (SELECT id FROM w WHERE x > 15);
SELECT a.id, b.id FROM w a FULL JOIN w b ON a.k = b.id WHERE a.id IN (SELECT id FROM w WHERE x > 15);
SELECT g.grp, count(*) FROM w g JOIN w h ON g.id = h.k WHERE g.id IN (SELECT k FROM w WHERE k IS NOT NULL GROUP BY k HAVING sum(x) > 20) GROUP BY g.grp;
