-- The executor's fast paths compared with PostgreSQL: many groups
-- through the open-addressing group index (grouptab.go: growth, equal
-- values at different scales in one group), numeric sums and averages
-- on int64 digits a node per batch with rows that overflow or are NULL
-- (aggsmall.go), and join residuals that read a few of many columns
-- (join.go check), in inner, outer, semi and anti joins.
SELECT g % 997 AS k, count(*), sum(g), avg(g::numeric * 1.5) FROM generate_series(1, 20000) g GROUP BY 1;
SELECT g % 7 AS a, g % 11 AS b, count(*) FROM generate_series(1, 5000) g GROUP BY 1, 2;
SELECT count(DISTINCT g % 300), count(*) FROM generate_series(1, 3000) g;
SELECT d, count(*) FROM (VALUES (1.5), (1.50), (2.0), (2), (NULL), (-0.00), (0)) v(d) GROUP BY d;
SELECT sum(x * 1000000000000), avg(x * x), sum(x - 1), sum(2 * x + 1) FROM (VALUES (9223372036.854775807::numeric), (1.5), (NULL), (-3)) v(x);
SELECT sum(x * y), avg(x + y), sum(x * (1 - y) * (1 + y)) FROM (VALUES (1.25, 0.05), (99999999999.99, 0.10), (NULL, 0.01), (2.5, NULL), (-7, 0.5)) v(x, y);
SELECT k, sum(g::numeric * 92233720368547758.07) FROM (SELECT g, g % 3 AS k FROM generate_series(1, 300) g) s GROUP BY k;
SELECT w1.id, w1.grp, w1.k, w1.x, w1.y, w1.f, w2.id, w2.x FROM w w1 JOIN w w2 ON w1.grp = w2.grp AND w1.x <> w2.x;
SELECT w1.id, w1.grp, w1.k, w1.x, w1.y, w1.f, w2.id, w2.k FROM w w1 LEFT JOIN w w2 ON w1.grp = w2.grp AND w1.k < w2.k;
SELECT w1.id, w1.y, w2.id, w2.y, w2.f FROM w w1 FULL JOIN w w2 ON w1.grp = w2.grp AND w1.y + w2.y > 3;
SELECT w1.* FROM w w1 WHERE EXISTS (SELECT 1 FROM w w2 WHERE w2.grp = w1.grp AND w2.k <> w1.k);
SELECT w1.* FROM w w1 WHERE NOT EXISTS (SELECT 1 FROM w w2 WHERE w2.grp = w1.grp AND w2.k <> w1.k AND w2.x > w1.x);
SELECT a.g, a.h, b.g FROM (SELECT g, g * 2 AS h, g % 10 AS m FROM generate_series(1, 2000) g) a JOIN (SELECT g, g % 10 AS m FROM generate_series(1, 50) g) b ON a.m = b.m AND a.g < b.g;
