-- A scan evaluates its filter's conjuncts in PostgreSQL's order, by
-- estimated cost with equal costs kept in written order (qualorder.go):
-- which one runs first decides whether a statement fails or answers.
-- nums.d is 0 in row 5, nums.f 0 in row 5, nums.i8 the int8 maximum in
-- row 4.
SELECT count(*) FROM (SELECT * FROM nums WHERE 100 / d > 30 AND d <> 0) x;
SELECT id FROM nums WHERE 1 / d > 0 AND id < 5;
SELECT id FROM nums WHERE d + 0 <> 0 AND 100 / d > 1;
SELECT id FROM nums WHERE 100 / d > 1 AND d + 0 <> 0;
SELECT id FROM nums WHERE i8 * 2 > 0 AND i8 < 100;
SELECT id FROM nums WHERE i8 * 2 > 0 AND i8 + 1 > 0;
SELECT id FROM nums WHERE 100 / d > 1 AND d IN (1.50, 2.25, 100);
SELECT id FROM nums WHERE 100 / d > 1 AND d NOT IN (0, 7);
SELECT id FROM nums WHERE 100 / d > 1 AND d IN (0, 7, 8);
SELECT id FROM nums WHERE 100 / d > 1 AND d NOT IN (0);
SELECT id FROM nums WHERE 100 / d > 1 AND i2 < d;
SELECT id FROM nums WHERE 100 / d > 1 AND i2 + 0 <> 5;
SELECT id FROM nums WHERE 100 / d > 1 AND id <> 5;
SELECT id FROM nums WHERE 100 / d > 1 AND abs(d) <> 0;
SELECT id FROM nums WHERE 100 / d > 1 AND coalesce(d, 1) <> 0;
SELECT id FROM nums WHERE 100 / d > 1 AND CASE WHEN d = 0 THEN false ELSE true END;
SELECT id FROM nums WHERE 100 / d > 1 AND NOT (d = 0);
SELECT id FROM nums WHERE 100 / d > 1 AND d IS NOT NULL AND d > 0;
SELECT id FROM nums WHERE 1 / f > 0 AND f <> 0;
SELECT id FROM nums WHERE 1 / f > 0 AND f::numeric <> 0;
SELECT id FROM nums WHERE 1 / f > 0 AND d::float8 <> 0;
SELECT id FROM nums WHERE 100 / d > 1 AND dt > '2000-01-01';
SELECT id FROM nums WHERE 100 / d > 1 AND dt::timestamp > '2000-01-01';
SELECT id FROM nums WHERE 100 / d > 1 AND dt > '2000-01-01'::timestamp;
SELECT id FROM nums WHERE 100 / d > 1 AND s::text <> 'E';
SELECT id FROM nums WHERE 100 / d > 1 AND c <> 'e';
SELECT id FROM nums WHERE 100 / d > 1 AND c::text <> 'e';
SELECT id FROM nums WHERE 100 / d > 1 AND c = s;
SELECT id FROM nums WHERE s::int > 0 AND s <> 'x';
SELECT id FROM nums WHERE s::int > 0 AND s LIKE '%z%';
SELECT id FROM nums WHERE 100 / d > 1 AND (d > 1 OR d < 0);
SELECT id FROM nums WHERE 100 / d > 1 AND (d + 1 > 1 OR d < 0);
SELECT id FROM nums WHERE 100 / d > 1 AND greatest(d, 0) > 0;
SELECT id FROM nums WHERE 100 / d > 1 AND nullif(d, 0) IS NOT NULL;
SELECT id FROM nums WHERE 100 / d > 1 AND length(s) > 0 AND d <> 0;
SELECT g FROM (SELECT id % 2 AS g, min(d) AS m FROM nums GROUP BY 1) x WHERE 100 / m > 1 AND m <> 0;
SELECT a.id FROM nums a JOIN nums b ON a.id = b.id WHERE 100 / (a.d + b.d) > 0 AND a.d + b.d <> 0;
-- A NULL conjunct stops its row as a false one does (ExecQual), so a
-- later conjunct does not fail on it; inside an expression an AND goes
-- on past a NULL (row 3: i2 and d NULL; row 5: d = 0).
SELECT id FROM nums WHERE i2 + f > 100 AND 100 / d > 1;
SELECT id FROM nums WHERE f > 0.5 AND 100 / d > 1;
SELECT id FROM nums WHERE (f > 0.5 AND 100 / d > 1) IS NOT TRUE;
SELECT id FROM nums WHERE (f > 0.5 AND 100 / d > 1) OR id = 1;
SELECT g FROM (SELECT id % 2 AS g, min(f) AS m, min(d) AS n FROM nums GROUP BY 1) x WHERE m > 0.5 AND 100 / n > 1;
SELECT a.id FROM nums a LEFT JOIN nums b ON a.id = b.id AND b.f > 0.5 AND 100 / b.d > 1;
SELECT id FROM nums WHERE nullif(id, 5) > 0 AND 100 / d > 1;
SELECT id FROM nums WHERE CASE WHEN id = 5 THEN NULL ELSE true END AND 100 / d > 1;
SELECT id FROM nums WHERE (nullif(id, 5) > 0 AND 100 / d > 1) IS NOT TRUE;
SELECT g FROM (SELECT id % 2 AS g, max(nullif(id, 5)) AS m, min(d) AS n FROM nums GROUP BY 1) x WHERE m > 0 AND 100 / n > 1;
SELECT a.id, b.id FROM nums a LEFT JOIN nums b ON a.id = b.id AND nullif(b.id, 5) > 0 AND 100 / b.d > 1;
SELECT a.id FROM nums a JOIN nums b ON a.id = b.id WHERE nullif(a.id + b.id, 10) > 0 AND 100 / (a.d + b.d) > 0;
