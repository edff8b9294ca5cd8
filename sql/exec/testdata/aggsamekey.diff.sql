-- a row whose group key is identical to the row before's takes that row's group (aggsamekey.go): runs of equal but not identical keys (bpchar padding, numeric scales, -0 and NaN floats), NULL runs, multi-column keys differing in one column, grouping sets, long runs
SELECT k, count(*) FROM (VALUES ('a'::bpchar), ('a  '::bpchar), ('a'::bpchar), ('b'::bpchar), (NULL), (NULL), ('b'::bpchar), ('a '::bpchar)) v(k) GROUP BY k ORDER BY k;
SELECT count(*), sum(c) FROM (SELECT k, count(*) AS c FROM (VALUES (1.0), (1.00), (1), (NULL), (NULL), (2.50), (2.5), (1.000)) v(k) GROUP BY k) s;
SELECT k, count(*) FROM (VALUES (0.0::float8), ('-0'::float8), ('NaN'::float8), ('NaN'::float8), (NULL), (0.0::float8)) v(k) GROUP BY k ORDER BY k;
SELECT a, b, count(*) FROM (VALUES (1, 'x'), (1, 'y'), (1, 'x'), (2, 'x'), (2, 'x'), (NULL, 'x'), (NULL, NULL), (NULL, NULL), (2, NULL)) v(a, b) GROUP BY a, b ORDER BY a, b;
SELECT a, b, c, count(*) FROM (VALUES (true, date '2000-01-01', 'p'), (true, date '2000-01-01', 'p'), (true, date '2000-01-02', 'p'), (false, date '2000-01-02', 'p'), (false, date '2000-01-02', 'q')) v(a, b, c) GROUP BY a, b, c ORDER BY a, b, c;
SELECT a, b, count(*), sum(x) FROM (VALUES (1, 'x', 1), (1, 'x', 2), (1, 'y', 3), (2, 'y', 4), (2, 'y', 5), (NULL, 'y', 6)) v(a, b, x) GROUP BY ROLLUP (a, b) ORDER BY a, b, GROUPING(a, b);
SELECT a, b, count(*) FROM (VALUES (1, 'x'), (1, 'x'), (2, 'x'), (2, 'y')) v(a, b) GROUP BY GROUPING SETS ((a), (b), ()) ORDER BY a, b;
SELECT count(*), sum(c), min(k), max(k) FROM (SELECT (i / 100)::text AS k, count(*) AS c FROM generate_series(1, 50000) i GROUP BY 1) s;
SELECT count(*), sum(c) FROM (SELECT i / 7 AS k1, (i / 3) % 2 AS k2, count(*) AS c FROM generate_series(1, 30000) i GROUP BY 1, 2) s;
SELECT k1, k2, count(*), sum(i) FROM (SELECT i, CASE WHEN i % 5 < 3 THEN 'R' ELSE 'A' END AS k1, CASE WHEN i < 600 THEN 'F' ELSE 'O' END AS k2 FROM generate_series(1, 1000) i) s GROUP BY k1, k2 ORDER BY k1, k2;
