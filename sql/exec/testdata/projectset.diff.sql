-- Set-returning functions in the select list (PostgreSQL 10+ ProjectSet):
-- several run in lockstep, the shorter padded with NULLs, no row when
-- all are empty; over aggregates; refused inside CASE/COALESCE and
-- aggregates as PostgreSQL refuses them.
SELECT generate_series(1, 3);
SELECT generate_series(1, 3), generate_series(1, 5);
SELECT unnest(ARRAY[1, 2]), unnest(ARRAY['a', 'b', 'c']), 7 AS k;
SELECT id, unnest(ia) FROM arr;
SELECT id, unnest(ia), unnest(ta) FROM arr;
SELECT id, unnest(ia), generate_series(1, 2) FROM arr;
SELECT id, unnest(ia) + 1 AS x, unnest(na) FROM arr;
SELECT id, generate_subscripts(ia, 1), unnest(ia) FROM arr;
SELECT id, generate_subscripts(ia, 1, true) FROM arr;
SELECT id, generate_subscripts(ia, 2) FROM arr;
SELECT id, unnest(ia) AS v FROM arr ORDER BY v, id;
SELECT DISTINCT unnest(ia) FROM arr;
SELECT unnest(ia) FROM arr LIMIT 3 /* refused: which rows is arr's heap order (limitorder.go) */;
SELECT id, generate_series(1, id) FROM arr WHERE id < 4;
SELECT count(*), generate_series(1, 2) FROM arr;
SELECT generate_series(1, count(*)::int) FROM arr;
SELECT id % 2 AS p, generate_series(1, count(*)::int) FROM arr GROUP BY id % 2;
SELECT sum(x), count(x) FROM (SELECT unnest(ia) AS x FROM arr) s;
SELECT x, count(*) FROM (SELECT unnest(ta) AS x FROM arr) s GROUP BY x;
SELECT (SELECT max(v) FROM (SELECT unnest(a.ia) AS v) s) FROM arr a;
SELECT unnest(NULL::int[]), 1;
SELECT generate_series(1, 2), unnest('{}'::int[]);
SELECT generate_series(1.5, 3), generate_series(3, 1, -1);
SELECT name, generate_series(n, n + 1) FROM t2;
SELECT id, CASE WHEN id > 1 THEN unnest(ia) END FROM arr;
SELECT id, coalesce(unnest(ia), 0) FROM arr;
SELECT sum(unnest(ia)) FROM arr;
SELECT id FROM arr WHERE unnest(ia) > 1;
SELECT id FROM arr GROUP BY id HAVING generate_series(1, 2) > 1;
SELECT unnest('{1,2}');
SELECT generate_subscripts(id, 1) FROM arr;
