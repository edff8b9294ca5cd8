-- Hash joins inside LATERAL and correlated subqueries build the side
-- reading no outer column once per statement (joinkeep.go): the
-- uncorrelated side on the right (kept), on the left of an inner join
-- (kept, the correlated side probing it), LEFT/semi/anti joins, NULL
-- keys, residual conditions reading both sides and the outer row, keys
-- of other types, nested laterals, and errors of the kept side.
SELECT a.id, x.id, x.k FROM w a CROSS JOIN LATERAL (SELECT b.id, c.k FROM w b JOIN w c ON c.id = b.k WHERE b.grp = a.grp) x ORDER BY 1, 2, 3;
SELECT a.id, x.id, x.k FROM w a CROSS JOIN LATERAL (SELECT b.id, c.k FROM w c JOIN w b ON c.id = b.k WHERE b.grp = a.grp) x ORDER BY 1, 2, 3;
SELECT a.id, x.id, x.k FROM w a CROSS JOIN LATERAL (SELECT b.id, c.k FROM w b JOIN w c ON c.id = b.k WHERE b.grp = a.grp ORDER BY c.k DESC NULLS LAST, b.id LIMIT 2) x ORDER BY 1, 2, 3;
SELECT a.id, x.id, x.k FROM w a LEFT JOIN LATERAL (SELECT b.id, c.k FROM w b LEFT JOIN w c ON c.id = b.k AND c.x > a.x WHERE b.grp = a.grp) x ON true ORDER BY 1, 2, 3;
SELECT a.id, x.id, x.k FROM w a LEFT JOIN LATERAL (SELECT b.id, c.k FROM w b JOIN w c ON c.id = b.k AND c.x + b.x > a.id * 5 WHERE b.grp = a.grp) x ON x.k IS NOT NULL ORDER BY 1, 2, 3;
SELECT a.id, x.n FROM w a, LATERAL (SELECT count(*) AS n, sum(c.x) AS s FROM w b JOIN w c ON c.k = b.k WHERE b.id <= a.id) x ORDER BY 1;
SELECT a.id, x.n FROM w a, LATERAL (SELECT count(*) AS n FROM w b JOIN nums c ON c.id = b.k WHERE b.id <= a.id) x ORDER BY 1;
SELECT a.id, x.n FROM w a, LATERAL (SELECT count(*) AS n FROM w b JOIN nums c ON c.i8 = b.x WHERE b.grp IS NOT DISTINCT FROM a.grp) x ORDER BY 1;
SELECT a.id, x.n FROM w a, LATERAL (SELECT count(*) AS n FROM w b WHERE b.grp = a.grp AND EXISTS (SELECT 1 FROM w c WHERE c.k = b.id)) x ORDER BY 1;
SELECT a.id, x.n FROM w a, LATERAL (SELECT count(*) AS n FROM w b WHERE b.grp = a.grp AND NOT EXISTS (SELECT 1 FROM w c WHERE c.k = b.id)) x ORDER BY 1;
SELECT a.id, x.n FROM w a, LATERAL (SELECT count(*) AS n FROM w b WHERE b.grp = a.grp AND b.k IN (SELECT c.id FROM w c WHERE c.x > 9)) x ORDER BY 1;
SELECT a.id, (SELECT count(*) FROM w b JOIN w c ON c.id = b.k WHERE b.grp = a.grp) AS n FROM w a ORDER BY 1;
SELECT a.id, (SELECT max(c.x) FROM w c JOIN w b ON c.id = b.k WHERE b.id = a.id) AS m FROM w a ORDER BY 1;
SELECT a.id, x.id, y.id FROM w a CROSS JOIN LATERAL (SELECT b.id FROM w b JOIN w c ON c.id = b.k WHERE b.grp = a.grp) x CROSS JOIN LATERAL (SELECT d.id FROM w d JOIN t2 e ON e.n = d.x + 2 WHERE d.id = x.id) y ORDER BY 1, 2, 3;
SELECT a.id, x.id FROM w a CROSS JOIN LATERAL (SELECT b.id FROM w b JOIN (SELECT c.id, 100 / c.x AS q FROM w c) c ON c.id = b.k WHERE b.grp = a.grp) x ORDER BY 1, 2;
SELECT a.id, x.id FROM w a CROSS JOIN LATERAL (SELECT b.id FROM w b JOIN (SELECT c.id, 100 / (c.x - 40) AS q FROM w c) c ON c.id = b.k WHERE b.grp = a.grp) x ORDER BY 1, 2;
SELECT a.id, x.id FROM w a CROSS JOIN LATERAL (SELECT b.id FROM w b JOIN (SELECT c.id, 100 / (c.x - 40) AS q FROM w c) c ON c.id = b.k WHERE b.grp = a.grp AND a.id > 100) x ORDER BY 1, 2;
SELECT a.name, x.n FROM t1 a, LATERAL (SELECT b.name, c.n FROM t2 b JOIN t3 c ON c.name = b.name WHERE b.n > a.n) x(name, n) ORDER BY 1, 2;
SELECT a.id, x.id, x.n FROM w a CROSS JOIN LATERAL (SELECT b.id, c.n FROM w b JOIN t2 c ON c.n = b.x + 2 OR c.n = b.id + 10 WHERE b.grp = a.grp) x ORDER BY 1, 2, 3;
SELECT a.id, x.id, x.n FROM w a CROSS JOIN LATERAL (SELECT b.id, c.n FROM w b JOIN t2 c ON c.n = b.id + 10 WHERE b.grp = a.grp OR a.grp IS NULL) x ORDER BY 1, 2, 3;
SELECT a.id, x.id, x.n FROM w a LEFT JOIN LATERAL (SELECT b.id, c.n FROM w b LEFT JOIN t2 c ON c.n = b.id + 10 AND c.n > a.id + 10 WHERE b.k = a.k) x ON true ORDER BY 1, 2, 3;
SELECT a.id, x.id FROM w a CROSS JOIN LATERAL (SELECT b.id FROM w b WHERE b.grp = a.grp AND b.id + 10 IN (SELECT n FROM t2)) x ORDER BY 1, 2;
SELECT a.id, x.id FROM w a CROSS JOIN LATERAL (SELECT b.id FROM w b WHERE b.grp = a.grp AND b.id + 10 NOT IN (SELECT n FROM t2)) x ORDER BY 1, 2;
SELECT a.id, x.id FROM w a CROSS JOIN LATERAL (SELECT b.id FROM w b WHERE b.grp = a.grp AND NOT EXISTS (SELECT 1 FROM t2 c WHERE c.n = b.id + 10)) x ORDER BY 1, 2;
SELECT a.id, x.id FROM w a CROSS JOIN LATERAL (SELECT b.id FROM w b JOIN (SELECT n, 100 / (n - 22) AS q FROM t2) c ON c.n = b.id + 10 WHERE b.grp = a.grp) x ORDER BY 1, 2;
