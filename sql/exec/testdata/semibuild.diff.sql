-- Semi and anti joins whose hash table holds their left side
-- (semibuild.go: the left side, filtered by constants, is estimated
-- below half the right side's rows), the right side streaming through
-- it and filtered by the left keys (TestDifferentialLate runs this file
-- through a source that applies late filters): NULL keys on either
-- side, residuals that are NULL, several matches of one left row,
-- duplicate left rows, keys converted between types, an anti join over
-- a semi join (TPC-H Q21's shape), joins under aggregates, sorts and
-- correlated subqueries, and an empty left side.
SELECT a.id FROM w a WHERE a.x > 15 AND EXISTS (SELECT 1 FROM w b WHERE b.k = a.k);
SELECT a.id FROM w a WHERE a.x > 15 AND NOT EXISTS (SELECT 1 FROM w b WHERE b.k = a.k);
SELECT a.id, a.k FROM w a WHERE a.x < 30 AND EXISTS (SELECT 1 FROM w b WHERE b.k = a.k AND b.id <> a.id);
SELECT a.id, a.k FROM w a WHERE a.x < 30 AND NOT EXISTS (SELECT 1 FROM w b WHERE b.k = a.k AND b.id <> a.id);
SELECT a.id FROM w a WHERE a.id > 3 AND EXISTS (SELECT 1 FROM w b WHERE b.k = a.k AND b.x > a.x);
SELECT a.id FROM w a WHERE a.id > 3 AND NOT EXISTS (SELECT 1 FROM w b WHERE b.k = a.k AND b.x > a.x);
SELECT a.id FROM w a WHERE a.id > 3 AND NOT EXISTS (SELECT 1 FROM w b WHERE b.k = a.k AND b.y > a.y);
SELECT a.id, a.grp FROM w a WHERE a.id <= 5 AND EXISTS (SELECT 1 FROM w b WHERE b.grp = a.grp AND b.k = a.k AND b.id <> a.id);
SELECT a.id FROM w a WHERE a.x IS NULL AND NOT EXISTS (SELECT 1 FROM w b WHERE b.k = a.k);
SELECT a.id FROM w a WHERE a.x IS NULL AND EXISTS (SELECT 1 FROM w b WHERE b.k = a.k);
SELECT a.id FROM w a WHERE a.x > 1000 AND NOT EXISTS (SELECT 1 FROM w b WHERE b.k = a.k);
SELECT a.id FROM w a WHERE a.x > 15 AND EXISTS (SELECT 1 FROM w b WHERE b.k = a.k AND b.id <> a.id)
  AND NOT EXISTS (SELECT 1 FROM w c WHERE c.k = a.k AND c.id <> a.id AND c.x > 15);
SELECT a.grp, count(*) FROM w a WHERE a.x > 5 AND EXISTS (SELECT 1 FROM w b WHERE b.id = a.k AND b.grp <> a.grp)
  AND NOT EXISTS (SELECT 1 FROM w c WHERE c.id = a.k AND c.x IS NULL) GROUP BY a.grp ORDER BY a.grp;
SELECT a.id FROM w a WHERE a.id < 4 AND a.k IN (SELECT k FROM w WHERE x IS NOT NULL) ORDER BY a.id DESC;
SELECT a.id, b.id FROM w a JOIN w b ON a.k = b.id WHERE a.x > 10 AND EXISTS (SELECT 1 FROM w c WHERE c.k = b.k AND c.id <> a.id);
SELECT a.id FROM w a WHERE a.x > 15 AND EXISTS (SELECT 1 FROM nums n WHERE n.i8 = a.k);
SELECT a.id FROM w a WHERE a.x > 15 AND NOT EXISTS (SELECT 1 FROM nums n WHERE n.i2 = a.k);
SELECT a.id FROM w a WHERE a.x > 15 AND EXISTS (SELECT 1 FROM nums n WHERE n.d = a.y);
SELECT a.id FROM w a WHERE a.x > 15 AND NOT EXISTS (SELECT 1 FROM nums n WHERE n.f = a.f);
SELECT t.name FROM t2 t WHERE t.n > 15 AND EXISTS (SELECT 1 FROM t3 WHERE t3.name = t.name);
SELECT t.name FROM t2 t WHERE t.n > 15 AND NOT EXISTS (SELECT 1 FROM t3 WHERE t3.name = t.name);
SELECT a.id, (SELECT count(*) FROM w b WHERE b.grp = a.grp AND b.x > 5 AND EXISTS (SELECT 1 FROM w c WHERE c.k = b.k AND c.id <> b.id)) FROM w a ORDER BY a.id;
SELECT a.id FROM w a WHERE a.x > 15 AND EXISTS (SELECT 1 FROM w b WHERE b.k = a.k AND b.id <> a.id) ORDER BY a.id LIMIT 2;
