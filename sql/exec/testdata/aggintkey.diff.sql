-- grouping by one integer, date, time or timestamp column goes through intGroups (aggintkey.go): type bounds, zero, negative keys, NULL keys, many groups
SELECT g, count(*) FROM (VALUES (-9223372036854775808::int8), (0), (NULL), (-1), (9223372036854775807), (0), (NULL), (-9223372036854775808), (1)) v(g) GROUP BY g ORDER BY g;
SELECT g, count(*), sum(g) FROM (VALUES (-32768::int2), (32767::int2), (0::int2), (NULL::int2), (-32768::int2)) v(g) GROUP BY g ORDER BY g;
SELECT g, count(*) FROM (VALUES (-2147483648), (2147483647), (0), (NULL), (2147483647)) v(g) GROUP BY g ORDER BY g;
SELECT i8, count(*), min(id) FROM nums GROUP BY i8 ORDER BY i8;
SELECT i2, count(*), max(id) FROM nums GROUP BY i2 ORDER BY i2;
SELECT dt, count(*) FROM nums GROUP BY dt ORDER BY dt;
SELECT d, count(*), sum(id) FROM wd GROUP BY d ORDER BY d;
SELECT ts, count(*) FROM wd GROUP BY ts ORDER BY ts;
SELECT t, count(*) FROM wd GROUP BY t ORDER BY t;
SELECT k, count(*), sum(x), min(grp) FROM w GROUP BY k ORDER BY k;
SELECT count(*), sum(k), sum(c), sum(k::int8 * c) FROM (SELECT i % 5003 - 2500 AS k, count(*) AS c FROM generate_series(1, 40000) i GROUP BY 1) s;
SELECT count(*), sum(c), min(k), max(k) FROM (SELECT (i::int8 * 2654435761) % 1000003 * 9223372036854 AS k, count(*) AS c FROM generate_series(1, 30000) i GROUP BY 1) s;
SELECT count(*), count(k), sum(c) FROM (SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE i % 1000 END AS k, count(*) AS c FROM generate_series(1, 9000) i GROUP BY 1) s;
SELECT count(*), sum(c) FROM (SELECT DATE '2000-01-01' + i % 3000 AS k, count(*) AS c FROM generate_series(1, 20000) i GROUP BY 1) s;
SELECT k, count(*) FROM (SELECT i % 3 - 1 AS k FROM generate_series(1, 10) i) s GROUP BY k HAVING count(*) > 3 ORDER BY k;
SELECT k, count(DISTINCT x), sum(DISTINCT x) FROM w GROUP BY k ORDER BY k;
