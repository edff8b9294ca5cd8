-- LIMIT/OFFSET whose rows depend on the order PostgreSQL reads them in
-- (no ORDER BY, or one leaving different rows tied across the cut) are
-- refused; where every row the cut could pick is the same, or the input's
-- order is PostgreSQL's own (VALUES, set-returning functions), answered.
SELECT * FROM t2 LIMIT 1 /* refused: which of three rows is PostgreSQL's heap order */;
SELECT * FROM t2 OFFSET 1 /* refused: which two rows */;
SELECT * FROM t2 LIMIT 2 OFFSET 1 /* refused */;
SELECT * FROM t2 LIMIT 3;
SELECT * FROM t2 LIMIT 5;
SELECT * FROM t2 OFFSET 3;
SELECT * FROM t2 LIMIT 0;
SELECT x FROM w WHERE grp = 'b' AND k = 1 LIMIT 1;
SELECT grp, k FROM w WHERE k = 1 LIMIT 1 /* refused */;
SELECT * FROM generate_series(1, 10) g LIMIT 3;
SELECT * FROM generate_series(1, 10) g OFFSET 7;
SELECT * FROM (VALUES (1), (2), (3)) v(x) LIMIT 2;
SELECT * FROM (VALUES (1), (2), (3)) v(x) WHERE x > 1 LIMIT 1;
SELECT * FROM (SELECT * FROM generate_series(1, 3) UNION ALL SELECT 7) u LIMIT 3;
WITH RECURSIVE r(n) AS (VALUES (1) UNION ALL SELECT n + 1 FROM r) SELECT * FROM r LIMIT 5;
SELECT grp, k FROM w ORDER BY k LIMIT 1 /* refused: (a,1) or (b,1) */;
SELECT k FROM w ORDER BY k LIMIT 1;
SELECT grp, k FROM w WHERE grp = 'a' ORDER BY k LIMIT 1;
SELECT grp, k FROM w WHERE grp = 'a' ORDER BY k LIMIT 2;
SELECT id, k FROM w ORDER BY k LIMIT 3 /* refused */;
SELECT id, k FROM w ORDER BY k LIMIT 2 OFFSET 1 /* refused */;
SELECT id, k FROM w ORDER BY k OFFSET 3 /* refused */;
SELECT id, k FROM w ORDER BY k LIMIT 4;
SELECT id, k FROM w ORDER BY k OFFSET 4;
SELECT id, k FROM w ORDER BY k, id LIMIT 3;
SELECT id, k FROM w ORDER BY k DESC NULLS LAST LIMIT 1;
SELECT a.name, x.n FROM t1 a, LATERAL (SELECT b.n FROM t2 b LIMIT 1) x /* refused: join.sql:1450's shape */;
SELECT a.name, x.n FROM t1 a, LATERAL (SELECT b.n FROM t2 b WHERE b.name = a.name LIMIT 1) x;
SELECT a.name, x.n FROM t1 a, LATERAL (SELECT b.n FROM t2 b ORDER BY b.n LIMIT 1) x;
SELECT (SELECT n FROM t2 LIMIT 1) /* refused */;
SELECT (SELECT n FROM t2 ORDER BY n DESC LIMIT 1);
SELECT n FROM (SELECT n, name FROM t2 ORDER BY name) s LIMIT 2;
SELECT id FROM (SELECT id, x FROM w ORDER BY x, id) s LIMIT 3 OFFSET 1;
SELECT grp FROM (SELECT grp, k FROM w ORDER BY k) s LIMIT 1 /* refused: a or b */;
SELECT grp FROM (SELECT grp, k FROM w WHERE grp = 'a' ORDER BY k) s LIMIT 2;
SELECT s.id FROM (SELECT id, k FROM w ORDER BY k) s LIMIT 2 /* refused */;
SELECT ntile(NULL) OVER (ORDER BY k), k FROM w LIMIT 2;
SELECT k, rank() OVER (ORDER BY k) FROM w LIMIT 5 OFFSET 1;
SELECT id, rank() OVER (ORDER BY k) FROM w LIMIT 2 /* refused: which two of the four k = 1 rows */;
