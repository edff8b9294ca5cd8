-- LEFT joins of the shapes sql/opt turns into RIGHT joins building the
-- preserved side when the other side passes 2M estimated rows (sql/opt
-- leftbuild.go; at these tables' sizes they stay LEFT joins, and the
-- RIGHT joins are joinfilter.diff.sql's), and semi/anti joins sql/opt
-- moves from above a FROM list's inner joins onto the relation their
-- condition reads (semipush.go): NULL keys on either side, duplicate
-- keys on either side, residuals (NULL too), keys converted between
-- types, empty preserved and empty other sides, aggregates and GROUP BY
-- over them (TPC-H Q13's count of counts), the columns in the
-- statement's order, nested joins.
SELECT a.id, a.k, b.id, b.x FROM w a LEFT JOIN w b ON a.k = b.id WHERE a.x > 15;
SELECT a.id, b.id FROM w a LEFT JOIN w b ON a.k = b.k WHERE a.id > 6;
SELECT b.id, a.id FROM w a LEFT JOIN w b ON a.k = b.k AND b.x > 8 WHERE a.id > 6;
SELECT a.id, b.id, b.grp FROM w a LEFT JOIN w b ON a.k = b.k AND b.grp <> a.grp WHERE a.x < 30;
SELECT a.id, b.id FROM w a LEFT JOIN w b ON a.k = b.k AND b.y > a.y WHERE a.id < 9;
SELECT a.id, b.id FROM w a LEFT JOIN w b ON a.k = b.id AND b.x IS NULL WHERE a.x IS NULL;
SELECT a.id, b.id FROM w a LEFT JOIN w b ON a.k = b.id WHERE a.x > 1000;
SELECT a.id, b.id FROM w a LEFT JOIN w b ON a.k = b.id AND b.x > 1000 WHERE a.x > 15;
SELECT a.id, b.id FROM w a LEFT JOIN (SELECT * FROM w WHERE x > 1000) b ON a.k = b.id WHERE a.id < 3;
SELECT a.k, count(b.id), count(*), sum(b.y) FROM w a LEFT JOIN w b ON a.k = b.k WHERE a.x > 15 GROUP BY a.k;
SELECT c, count(*) FROM (SELECT a.id, count(b.id) AS c FROM w a LEFT JOIN w b ON a.id = b.k AND b.grp IS DISTINCT FROM 'c' WHERE a.id < 8 GROUP BY a.id) s GROUP BY c ORDER BY 2 DESC, 1 DESC;
SELECT a.id, n.id, n.i8 FROM w a LEFT JOIN nums n ON n.i8 = a.k * 10 WHERE a.x > 15;
SELECT a.id, n.id FROM w a LEFT JOIN nums n ON n.i2 = a.k WHERE a.id > 8;
SELECT t2.name, t3.n FROM t2 LEFT JOIN t3 ON t2.name = t3.name WHERE t2.n > 20;
SELECT a.id, b.id, c.id FROM w a LEFT JOIN w b ON a.k = b.id LEFT JOIN w c ON b.k = c.id WHERE a.x > 15;
SELECT a.id, b.id, c.id FROM w a JOIN w c ON c.id = a.id LEFT JOIN w b ON a.k = b.k WHERE a.x > 15 AND c.x > 0;
SELECT a.id, b.id FROM w a LEFT JOIN w b ON a.k = b.id WHERE a.x > 15 UNION ALL SELECT 0, 0;
SELECT a.id, b.id FROM w a LEFT JOIN w b ON a.k = b.id WHERE a.x > 15 ORDER BY a.id DESC, b.id;
SELECT a.id FROM w a, w c WHERE c.id = a.k AND a.id IN (SELECT k FROM w WHERE x > 15);
SELECT a.id, c.id FROM w a, w c WHERE c.id = a.k AND a.k IN (SELECT k FROM w WHERE x > 15 OR x IS NULL);
SELECT a.id, c.id FROM w a, w c WHERE c.k = a.k AND a.id NOT IN (SELECT k FROM w WHERE k IS NOT NULL);
SELECT a.id, c.id FROM w a JOIN w c ON c.k = a.k WHERE NOT EXISTS (SELECT 1 FROM w b WHERE b.id = a.k AND b.x > 15);
SELECT a.id, c.id FROM w a JOIN w c ON c.k = a.k WHERE EXISTS (SELECT 1 FROM w b WHERE b.k = a.id AND b.x > 1000);
SELECT a.id, c.id FROM w a JOIN w c ON c.k = a.k WHERE NOT EXISTS (SELECT 1 FROM w b WHERE b.k = a.id AND b.x > 1000);
SELECT a.grp, c.grp, sum(a.y) FROM w a JOIN w c ON c.id = a.k JOIN nums n ON n.id = c.k WHERE a.id IN (SELECT k FROM w GROUP BY k HAVING count(*) > 1) GROUP BY a.grp, c.grp;
SELECT a.id, c.id FROM w a JOIN w c ON c.k = a.k WHERE a.k IN (SELECT i2 FROM nums);
SELECT a.id, c.id FROM w a JOIN w c ON c.k = a.k WHERE a.f IN (SELECT f FROM nums);
SELECT c, count(*) FROM (SELECT a.id, count(b.id) AS c FROM w a LEFT JOIN w b ON a.id = b.k AND b.grp IS DISTINCT FROM 'c' WHERE a.id < 8 AND a.x > 0 GROUP BY a.id) s GROUP BY c ORDER BY 2 DESC, 1 DESC;
SELECT a.id, b.id FROM w a LEFT JOIN w b ON a.k = b.id AND b.id > 1000 WHERE a.x > 15 AND a.id > 0;
SELECT a.grp, count(b.id), count(*) FROM w a LEFT JOIN w b ON a.k = b.id AND b.id > 1000 WHERE a.x > 15 AND a.id > 0 GROUP BY a.grp;
