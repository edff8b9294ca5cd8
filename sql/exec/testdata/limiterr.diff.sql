-- An error below a LIMIT on a row PostgreSQL's plan may never read
-- (an index scan in the ORDER BY's order stops at the cut; a sequential
-- scan and a sort read every row): whether PostgreSQL fails depends on
-- its plan, so the error is refused (randmix seed 7108 query 56:
-- 22003 where PostgreSQL, reading the primary key backwards, answered).
SELECT id, sum(i8 * 2) FROM nums GROUP BY id ORDER BY id LIMIT 2 /* refused: ids 1, 2 by the index, or every row */;
SELECT id, sum(DISTINCT i8 * 2) FROM nums GROUP BY id HAVING sum(DISTINCT i8 * 2) IS NOT NULL ORDER BY id DESC LIMIT 1 /* refused */;
SELECT id, i8 * 2 FROM nums ORDER BY id LIMIT 3 /* refused */;
SELECT id FROM nums WHERE i8 * 2 > 0 ORDER BY id LIMIT 1 /* refused */;
-- No row fails: answered.
SELECT id, sum(i8 * 2) FROM nums WHERE id <> 4 GROUP BY id ORDER BY id LIMIT 2;
SELECT id, i8 * 2 FROM nums WHERE i8 < 100 ORDER BY id LIMIT 3;
-- PostgreSQL reads the failing row in every plan: the error stands.
SELECT sum(i8 * 2) FROM nums LIMIT 1;
SELECT sum(i8 * 2) FROM nums ORDER BY 1 LIMIT 1;
SELECT i8 * 2 FROM (SELECT i8 FROM nums ORDER BY id LIMIT 5) s;
SELECT id, i8 * 2 FROM nums ORDER BY id OFFSET 1;
SELECT x * 2147483647 FROM (VALUES (1), (2), (3)) v(x) LIMIT 2;
