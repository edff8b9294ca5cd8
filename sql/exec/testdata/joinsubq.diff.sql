-- Comma joins whose conditions hold a correlated subquery: the tree is
-- reordered by its estimates and the subquery's conjunct placed on the
-- lowest join that has its columns (sql/opt joinorder.go), as TPC-H
-- Q2's min() over the suppliers of one part; NULLs on both sides.
SELECT a.id, b.id, c.id FROM w a, w b, w c WHERE a.k = b.id AND b.k = c.id
  AND a.x = (SELECT max(x) FROM w d WHERE d.k = a.k) ORDER BY 1, 2, 3;
SELECT a.id, b.id FROM w a, w b, nums n WHERE a.k = b.id AND n.id = b.k
  AND b.y >= (SELECT min(y) FROM w d WHERE d.grp = a.grp) ORDER BY 1, 2;
SELECT a.id, b.id FROM w a, w b, nums n WHERE a.k = b.id AND n.id = a.id AND a.x > 5
  AND b.f < (SELECT avg(f) FROM w d WHERE d.k = b.k AND d.id <> a.id) ORDER BY 1, 2;
SELECT count(*) FROM w a, w b, w c WHERE a.id = b.k AND c.id = b.id
  AND EXISTS (SELECT 1 FROM w d WHERE d.k = a.id AND d.x > c.x);
SELECT a.grp, count(*) FROM w a, w b WHERE a.id = b.k
  AND a.x <> ALL (SELECT x FROM w d WHERE d.grp = b.grp AND d.x IS NOT NULL) GROUP BY a.grp ORDER BY 1;
