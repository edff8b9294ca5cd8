-- The variance and standard deviation aggregates (stddev, stddev_samp,
-- stddev_pop, variance, var_samp, var_pop) on the tree engine, grouped
-- and as window functions, compared with PostgreSQL: numeric results
-- over integers and numeric (exact, PostgreSQL's result scales), float8
-- over float4/float8 (Youngs–Cramer), NULL over no rows or one row for
-- the sample forms, NaN and Infinity, overflow (22003), no overload
-- (42883).
SELECT stddev(x), stddev_samp(x), stddev_pop(x), variance(x), var_samp(x), var_pop(x) FROM w;
SELECT stddev(y), stddev_samp(y), stddev_pop(y), variance(y), var_samp(y), var_pop(y) FROM w;
SELECT stddev(f), stddev_samp(f), stddev_pop(f), variance(f), var_samp(f), var_pop(f) FROM w /* refused: more than five rows, or five whose orders give two results: PostgreSQL accumulates in its plan's order (types.FloatAccumGuard) */;
SELECT grp, stddev(x), variance(y), var_pop(f), stddev_pop(k), count(*) FROM w GROUP BY grp;
SELECT grp, var_samp(x), stddev_samp(f) FROM w WHERE id IN (1, 6, 10, 12) GROUP BY grp;
SELECT variance(x), stddev_pop(x) FROM w WHERE id > 100;
SELECT variance(i2), variance(i8), var_pop(d), stddev(d), stddev_pop(i8) FROM nums;
SELECT variance(f) FROM nums;
SELECT var_pop(f) FROM nums WHERE id <> 4 /* refused: more than five rows, or five whose orders give two results: PostgreSQL accumulates in its plan's order (types.FloatAccumGuard) */;
SELECT variance(x::float4), stddev(x::float4) FROM w /* refused: more than five rows, or five whose orders give two results: PostgreSQL accumulates in its plan's order (types.FloatAccumGuard) */;
SELECT variance(n), var_pop(n), stddev(n) FROM wd;
SELECT variance(f), var_pop(f), stddev_samp(f) FROM wd;
SELECT variance(s) FROM nums;
SELECT variance('1');
SELECT var_pop(1), var_samp(1), stddev_pop(2.5), stddev_samp(2.5), variance(NULL::int);
SELECT var_samp(v), stddev(v) FROM (VALUES (1e20::numeric), (1), (-1e20)) t(v);
SELECT variance(v), stddev(v) FROM (VALUES (0.1::numeric(10,3)), (0.2), (0.3), (0.35)) t(v);
SELECT variance(DISTINCT k), stddev(k) FILTER (WHERE id < 6) FROM w;
SELECT id, grp, variance(x) OVER (PARTITION BY grp ORDER BY id), stddev_pop(y) OVER (PARTITION BY grp) FROM w;
SELECT id, var_samp(x) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), stddev(y) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING) FROM w;
SELECT id, var_pop(f) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), stddev_samp(f) OVER (ORDER BY id) FROM w;
SELECT id, variance(n) OVER (ORDER BY id), variance(f) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM wd;
SELECT i, sum(v) OVER w, variance(v) OVER w, stddev_pop(v) OVER w, var_samp(v) OVER w FROM (VALUES (1, 1.55), (2, 2), (3, 3), (4, 4), (5, 4)) t(i, v) WINDOW w AS (ORDER BY i ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING);
SELECT i, variance(v) OVER w, stddev(v) OVER w FROM (VALUES (1, 1.55), (2, 2), (3, 3), (4, 4), (5, 4)) t(i, v) WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);

-- order-free (at most five rows whose every order agrees): answered
SELECT stddev(f), stddev_samp(f), stddev_pop(f), variance(f), var_samp(f), var_pop(f) FROM w WHERE id IN (1, 2);
SELECT variance(x::float4), stddev(x::float4) FROM w WHERE id < 3;
