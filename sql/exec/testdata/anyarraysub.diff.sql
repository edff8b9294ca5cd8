-- x op ANY/ALL over an array a subquery computes: ARRAY(SELECT …) and a
-- scalar subquery returning an array (refused before: "ANY/ALL over this
-- subquery"), uncorrelated and correlated, with NULLs and empty arrays.
SELECT id FROM nums WHERE id = ANY (ARRAY(SELECT n FROM t2 WHERE n < 30)) ORDER BY id;
SELECT id FROM nums WHERE id = ANY (ARRAY(SELECT id FROM nums WHERE i2 IS NOT NULL)) ORDER BY id;
SELECT id FROM nums WHERE id <> ALL (ARRAY(SELECT id FROM nums WHERE id > 3)) ORDER BY id;
SELECT id FROM nums WHERE id = ANY (ARRAY(SELECT id FROM nums WHERE false)) ORDER BY id;
SELECT id FROM nums WHERE id <> ALL (ARRAY(SELECT id FROM nums WHERE false)) ORDER BY id;
SELECT id, i2 = ANY (ARRAY(SELECT i2 FROM nums)) FROM nums ORDER BY id;
SELECT id FROM nums WHERE i8 > ALL (ARRAY(SELECT i8 FROM nums n2 WHERE n2.id < nums.id)) ORDER BY id;
SELECT a.id FROM arr a WHERE 2 = ANY ((SELECT b.ia FROM arr b WHERE b.id = a.id)) ORDER BY 1;
SELECT id FROM nums WHERE id = ANY ((SELECT ARRAY[1, 3, NULL]::int4[])) ORDER BY id;
SELECT id FROM nums WHERE s = ANY (ARRAY(SELECT name FROM t2)) ORDER BY id;
SELECT count(*) FROM nums WHERE id = ANY (ARRAY(SELECT id FROM nums UNION ALL SELECT id FROM nums));
