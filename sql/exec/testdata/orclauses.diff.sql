-- Restriction OR clauses (sql/opt/orclauses.go): a join condition that
-- is an OR of arms reading both sides gives each side the OR of the
-- arms' parts that read it alone (TPC-H Q19 and Q7's shapes): NULLs in
-- the parts, an arm with no part on one side (nothing derived there),
-- arms with several parts, IN lists, three tables, outer joins (nothing
-- derived), a part that can fail (not derived: PostgreSQL's errors
-- decide), and the joins under aggregates.
SELECT a.id, b.id FROM w a, w b WHERE a.k = b.k AND ((a.grp = 'a' AND b.x > 10) OR (a.grp = 'b' AND b.x < 9));
SELECT a.id, b.id FROM w a, w b WHERE a.k = b.k AND ((a.grp = 'a' AND b.x > 10 AND b.y >= 2) OR (a.grp = 'b' AND a.x = 5 AND b.f IS NULL));
SELECT a.id, b.id FROM w a, w b WHERE a.k = b.k AND ((a.grp = 'a' AND b.x > 10) OR (a.x IS NULL));
SELECT a.id, b.id FROM w a, w b WHERE (a.k = b.k AND a.grp IN ('a', 'c') AND b.x BETWEEN 1 AND 20)
   OR (a.k = b.k AND a.grp = 'b' AND b.x BETWEEN 5 AND 50)
   OR (a.k = b.k AND a.grp IS NULL AND b.y <= 1.5);
SELECT a.id, b.id FROM w a JOIN w b ON a.id = b.k WHERE (a.x > 10 AND b.grp = 'a') OR (a.x IS NULL AND b.grp = 'b') OR (a.f = 2 AND b.grp IS NULL);
SELECT a.id, b.id, c.id FROM w a, w b, w c WHERE a.k = b.k AND b.id = c.k
  AND ((a.grp = 'a' AND c.x > 10 AND b.y > 1) OR (a.grp = 'b' AND c.x <= 10 AND b.f >= 1));
SELECT a.id, b.id FROM w a LEFT JOIN w b ON a.k = b.k AND ((a.grp = 'a' AND b.x > 10) OR (a.grp = 'b' AND b.x < 9));
SELECT a.id, b.id FROM w a LEFT JOIN w b ON a.k = b.k WHERE (a.grp = 'a' AND b.x > 10) OR (a.grp = 'b' AND b.x IS NULL);
SELECT a.id, b.id FROM w a, w b WHERE a.k = b.k AND ((a.grp = 'a' AND 100 / a.x > 1) OR (a.grp = 'b' AND b.x < 9));
SELECT a.id, b.id FROM w a, w b WHERE a.k = b.k AND ((a.grp = 'a' AND b.x > 10) OR (a.grp = 'b' AND 10 / (b.x - 5) > 0));
SELECT a.id, n.id FROM w a, nums n WHERE a.id = n.id AND ((n.c = 'a' AND a.y > 1) OR (n.v = 'bb' AND a.y < 3) OR (n.dt >= '2000-01-01' AND a.f = 2));
SELECT a.id, n.id FROM w a, nums n WHERE a.id = n.id AND ((n.i8 > 15 AND a.x >= 10) OR (n.f < 1 AND a.k = 1) OR (n.d = 0 AND a.grp = 'a'));
SELECT a.grp, count(*), sum(b.y) FROM w a, w b WHERE a.k = b.k AND ((a.grp = 'a' AND b.x > 10) OR (a.grp = 'b' AND b.x < 9)) GROUP BY a.grp ORDER BY a.grp;
SELECT sum(a.x * b.y) FROM w a, w b WHERE (a.k = b.k AND a.grp = 'a' AND b.x >= 1 AND b.x <= 11 AND a.f <= 1)
   OR (a.k = b.k AND a.grp = 'b' AND b.x >= 10 AND b.x <= 20 AND a.f <= 2)
   OR (a.k = b.k AND a.grp = 'c' AND b.x >= 20 AND b.x <= 80 AND a.f <= 7);
SELECT a.id, b.id FROM w a, w b WHERE a.k = b.k AND ((a.grp = 'a' AND b.x > 10) OR (a.grp = 'b' AND b.x < 9)) AND ((a.grp = 'a' AND b.x > 10) OR (a.grp = 'b' AND b.x < 9));
SELECT a.id FROM w a WHERE EXISTS (SELECT 1 FROM w b WHERE b.k = a.k AND ((a.grp = 'a' AND b.x > 10) OR (a.grp = 'b' AND b.x < 9)));
