-- NOT IN (subquery) in WHERE as a null-aware anti join (sql/opt
-- notin.go, sql/exec joinnull.go): NULLs among x (w.k, w.x), among the
-- subquery's rows, both, neither, an empty subquery, <> ALL, keys of
-- other types (int2/int8/numeric/text/char), beside other conjuncts, in
-- a join's filter, under an aggregate, in a subquery, and the forms
-- that stay subqueries (correlated, row comparisons, outside WHERE).
SELECT id, k FROM w WHERE k NOT IN (SELECT x FROM w WHERE x IS NOT NULL) ORDER BY id;
SELECT id, k FROM w WHERE k NOT IN (SELECT x FROM w) ORDER BY id;
SELECT id, k FROM w WHERE k NOT IN (SELECT id FROM w WHERE id > 5) ORDER BY id;
SELECT id, k FROM w WHERE k NOT IN (SELECT id FROM w WHERE id > 100) ORDER BY id;
SELECT id, x FROM w WHERE x NOT IN (SELECT k * 10 FROM w WHERE k IS NOT NULL) ORDER BY id;
SELECT id, x FROM w WHERE x NOT IN (SELECT NULL::int4) ORDER BY id;
SELECT id, x FROM w WHERE x NOT IN (SELECT n FROM t1 WHERE n > 100) ORDER BY id;
SELECT id FROM w WHERE k <> ALL (SELECT id FROM nums) ORDER BY id;
SELECT id FROM w WHERE k <> ALL (SELECT i2 FROM nums) ORDER BY id;
SELECT id FROM w WHERE k NOT IN (SELECT i8 FROM nums WHERE i8 IS NOT NULL) ORDER BY id;
SELECT id FROM w WHERE y NOT IN (SELECT d FROM nums WHERE d IS NOT NULL) ORDER BY id;
SELECT id FROM w WHERE f NOT IN (SELECT f FROM nums WHERE f IS NOT NULL) ORDER BY id;
SELECT id FROM nums WHERE s NOT IN (SELECT grp FROM w WHERE grp IS NOT NULL) ORDER BY id;
SELECT id FROM nums WHERE c NOT IN (SELECT v FROM nums WHERE v IS NOT NULL AND id > 2) ORDER BY id /* refused: the subquery column converted to char(n), which the subquery path dereferenced as nil */;
SELECT id FROM nums WHERE v NOT IN (SELECT s FROM nums WHERE id <> 3) ORDER BY id;
SELECT id FROM w WHERE grp = 'a' AND k NOT IN (SELECT x FROM w WHERE x < 30) AND x IS NOT NULL ORDER BY id;
SELECT id FROM w WHERE k + 1 NOT IN (SELECT k FROM w WHERE k IS NOT NULL) ORDER BY id;
SELECT id FROM w WHERE k NOT IN (SELECT x FROM w WHERE x IS NOT NULL) AND x NOT IN (SELECT n FROM t2) ORDER BY id;
SELECT a.id, b.id FROM w a JOIN w b ON a.k = b.k WHERE a.x NOT IN (SELECT n FROM t3) ORDER BY 1, 2;
SELECT grp, count(*), count(k) FROM w WHERE k NOT IN (SELECT i2 FROM nums WHERE i2 IS NOT NULL) GROUP BY grp ORDER BY grp;
SELECT id FROM w WHERE id IN (SELECT k FROM w WHERE k NOT IN (SELECT id FROM nums)) ORDER BY id;
SELECT count(*) FROM w WHERE x NOT IN (SELECT x FROM w WHERE id < 0);
SELECT id FROM w a WHERE a.k NOT IN (SELECT b.x FROM w b WHERE b.grp = a.grp) ORDER BY id;
SELECT id FROM w WHERE (k, x) NOT IN (SELECT k, x FROM w WHERE id > 6) ORDER BY id;
SELECT id, k NOT IN (SELECT x FROM w WHERE x IS NOT NULL), k NOT IN (SELECT x FROM w) FROM w ORDER BY id;
SELECT id FROM w WHERE grp = 'b' OR k NOT IN (SELECT id FROM w WHERE id > 4) ORDER BY id;
SELECT id FROM w WHERE NOT (k NOT IN (SELECT id FROM w WHERE id > 4)) ORDER BY id;
