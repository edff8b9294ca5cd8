-- corr, covar_pop, covar_samp and the regr_* aggregates on sql/exec
-- compared with PostgreSQL: grouped, over joins, NULL pairs, integer
-- and numeric arguments, FILTER, empty input, horizontal and vertical
-- lines, infinities, NaN and overflow.
SELECT grp, regr_count(y, x), regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x), regr_avgx(y, x), regr_avgy(y, x), regr_r2(y, x), regr_slope(y, x), regr_intercept(y, x), covar_pop(y, x), covar_samp(y, x), corr(y, x) FROM w GROUP BY grp /* refused: more than five rows, or five whose orders give two results: PostgreSQL accumulates in its plan's order (types.FloatAccumGuard) */;
SELECT regr_count(f, x), regr_sxx(f, k), regr_syy(f, k), regr_sxy(f, x), corr(f, x), corr(x, k), covar_samp(k, x), regr_r2(f, x), regr_slope(x, k), regr_intercept(x, k) FROM w /* refused: more than five rows, or five whose orders give two results: PostgreSQL accumulates in its plan's order (types.FloatAccumGuard) */;
SELECT corr(f, x) FILTER (WHERE k > 1), regr_count(f, x) FILTER (WHERE id > 100), covar_pop(1.5, 2), covar_samp(3, 4) FROM w;
SELECT regr_count(f, x), corr(f, x), covar_pop(f, x), regr_avgx(f, x) FROM w WHERE id > 100;
SELECT k, corr(x, x), regr_r2(x, 1), regr_r2(1, x), regr_slope(1, x), regr_intercept(x, 1), regr_sxx(x, 2) FROM w GROUP BY k;
SELECT corr(w.x, n.i2), regr_slope(n.d, w.f), covar_pop(n.i8, w.id) FROM w JOIN nums n ON n.id = w.k /* refused: more than five rows, or five whose orders give two results: PostgreSQL accumulates in its plan's order (types.FloatAccumGuard) */;
SELECT corr(f, i2), regr_sxx(f, i2), regr_syy(f, i2), covar_pop(d, i8), regr_avgy(f, id) FROM nums;
SELECT covar_pop(1::float8, 'inf'::float8), covar_samp(3::float8, 'inf'::float8), covar_pop(1::float8, 'nan'::float8), covar_samp(3::float8, 'nan'::float8);
SELECT covar_pop(y, x), corr(y, x), regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x), regr_avgx(y, x) FROM (VALUES (1::float8, 2::float8), ('inf', 3), (4, 'nan'), (5, 6)) v(y, x);
SELECT regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x), corr(y, x) FROM (VALUES ('inf'::float8, '-inf'::float8), (1, 2)) v(y, x);
SELECT regr_sxx(y, x) FROM (VALUES (1e308::float8, 1e308::float8), (-1e308, -1e308)) v(y, x);
SELECT regr_sxy(y, x) FROM (VALUES (1e200::float8, 1e200::float8), (-1e200, -1e200), (1, 1)) v(y, x);
SELECT corr(y, x) FROM (VALUES (1, 'a')) v(y, x);
SELECT corr(y) FROM (VALUES (1)) v(y);
SELECT count(*), sum(x), regr_sxx(y, x), sum(y), regr_syy(y, x), regr_sxy(y, x) FROM (VALUES (10::float8, 150::float8), (20, 250), (30, 350), (80, 540), (100, 200)) v(x, y) WHERE x IN (10, 20, 30, 80) /* refused: more than five rows, or five whose orders give two results: PostgreSQL accumulates in its plan's order (types.FloatAccumGuard) */;
SELECT count(*), sum(x), regr_sxx(y, x), sum(y), regr_syy(y, x), regr_sxy(y, x) FROM (VALUES (10::float8, 150::float8), (20, 250), (30, 350), (80, 540), (100, 200)) v(x, y) /* refused: more than five rows, or five whose orders give two results: PostgreSQL accumulates in its plan's order (types.FloatAccumGuard) */;

-- order-free (at most five rows whose every order agrees, or averages of integers): answered
SELECT regr_count(f, x), regr_sxx(f, k), regr_syy(f, k), regr_sxy(f, x), corr(f, x), covar_samp(k, x), regr_r2(f, x), regr_slope(x, k), regr_intercept(x, k) FROM w WHERE id IN (1, 2);
SELECT regr_avgx(f, x), regr_avgy(x, k), regr_count(f, x) FROM w;
SELECT count(*), sum(x), regr_sxx(y, x), sum(y), regr_syy(y, x), regr_sxy(y, x), regr_slope(y, x), corr(y, x) FROM (VALUES (10::float8, 150::float8), (80, 540)) v(x, y);
