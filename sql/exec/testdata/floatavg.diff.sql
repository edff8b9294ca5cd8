-- avg(float) is float8_accum, raising 22003 when Sx or the Youngs-Cramer
-- Sxx overflows from finite inputs (avg never reads Sxx); sum(float) is
-- float8pl/float4pl. Answered where every order of the rows gives one
-- result, value or error (floatavg.go), else refused.
SELECT avg(x) FROM (VALUES (1e200::float8), (-1e200)) v(x);
SELECT avg(x) FROM (VALUES (1e200::float8), (1e200)) v(x);
SELECT avg(x), sum(x) FROM (VALUES (1e300::float8), (-1e300), (4)) v(x);
SELECT avg(x::float4) FROM (VALUES (1e30), (-1e30)) v(x);
SELECT avg(x) FROM (VALUES (1e200::float8), ('Infinity')) v(x);
SELECT avg(f) FROM w;
SELECT sum(f), avg(f) FROM nums;
SELECT sum(x) FROM (VALUES (1e308::float8), (1e308), ('Infinity')) v(x) /* refused: an overflow in one order, Infinity in another */;
SELECT sum(x) FROM (VALUES (1e308::float8), (1e308), (-1e308)) v(x) /* refused: an overflow in one order, 1e308 in another */;
SELECT sum(x) FROM (VALUES (1e308::float8), (1e308)) v(x);
SELECT sum(x::float4) FROM (VALUES (3e38), (3e38)) v(x);
SELECT sum(x::float4) FROM (VALUES (3e38), (3e38), (-3e38)) v(x) /* refused: an overflow in one order only */;
SELECT id, avg(x) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM (VALUES (1, 1e200::float8), (2, -1e200), (3, 1)) v(id, x);
SELECT id, avg(x) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND CURRENT ROW) FROM (VALUES (1, 1e200::float8), (2, -1e200), (3, 1)) v(id, x);
SELECT avg(x) FROM (SELECT (g % 7) * 0.25::float8 AS x FROM generate_series(1, 1000) g) s;
SELECT avg(x), sum(x) FROM (SELECT g * 1e100::float8 AS x FROM generate_series(1, 20) g) s /* refused: more than five rows whose sum rounds */;
SELECT avg(x) FROM (SELECT (g % 3) * 1e150::float8 AS x FROM generate_series(1, 12) g) s /* refused: Sxx may overflow */;
SELECT avg(DISTINCT x) FROM (VALUES (1e200::float8), (-1e200), (1e200)) v(x);
SELECT avg(x::float4) FROM (VALUES (1.5), (2.5), (4)) v(x);
