-- SEARCH and CYCLE of WITH RECURSIVE (PostgreSQL 14+): the added
-- sequence, mark and path columns (records and record arrays).
WITH RECURSIVE g(f, t) AS (VALUES (1, 2), (1, 3), (2, 3), (1, 4), (4, 5)), s(f, t) AS (SELECT * FROM g UNION ALL SELECT g.* FROM g, s WHERE g.f = s.t) SEARCH DEPTH FIRST BY f, t SET seq SELECT * FROM s ORDER BY seq;
WITH RECURSIVE g(f, t) AS (VALUES (1, 2), (1, 3), (2, 3), (1, 4), (4, 5)), s(f, t) AS (SELECT * FROM g UNION ALL SELECT g.* FROM g, s WHERE g.f = s.t) SEARCH BREADTH FIRST BY f, t SET seq SELECT * FROM s ORDER BY seq;
WITH RECURSIVE test AS (SELECT 1 AS x UNION ALL SELECT x + 1 FROM test) SEARCH DEPTH FIRST BY x SET y SELECT * FROM test LIMIT 5;
WITH RECURSIVE test AS (SELECT 1 AS x UNION ALL SELECT x + 1 FROM test) SEARCH BREADTH FIRST BY x SET y SELECT * FROM test LIMIT 5;
WITH RECURSIVE g(f, t) AS (VALUES (1, 2), (1, 3), (2, 3), (1, 4), (4, 5), (5, 1)), s(f, t) AS (SELECT * FROM g UNION ALL SELECT g.* FROM g, s WHERE g.f = s.t) CYCLE f, t SET is_cycle USING path SELECT * FROM s;
WITH RECURSIVE g(f, t) AS (VALUES (1, 2), (1, 3), (2, 3), (1, 4), (4, 5), (5, 1)), s(f, t) AS (SELECT * FROM g UNION DISTINCT SELECT g.* FROM g, s WHERE g.f = s.t) CYCLE f, t SET is_cycle TO 'Y' DEFAULT 'N' USING path SELECT * FROM s;
WITH RECURSIVE test AS (SELECT 0 AS x UNION ALL SELECT (x + 1) % 10 FROM test) CYCLE x SET is_cycle USING path SELECT * FROM test;
WITH RECURSIVE a AS (SELECT 1 AS b UNION ALL SELECT * FROM a) CYCLE b SET c USING p SELECT * FROM a;
WITH RECURSIVE g(f, t) AS (VALUES (1, 2), (1, 3), (2, 3), (1, 4), (4, 5), (5, 1)), s(f, t) AS (SELECT * FROM g UNION ALL SELECT g.* FROM g, s WHERE g.f = s.t) SEARCH DEPTH FIRST BY f, t SET seq CYCLE f, t SET is_cycle USING path SELECT * FROM s;
WITH RECURSIVE g(f, t) AS (VALUES (1, 2), (1, 3), (2, 3), (1, 4), (4, 5), (5, 1)), s(f, t) AS (SELECT * FROM g UNION ALL SELECT g.* FROM g, s WHERE g.f = s.t) SEARCH BREADTH FIRST BY f, t SET seq CYCLE f, t SET is_cycle USING path SELECT * FROM s;
WITH RECURSIVE g(f, t) AS (VALUES (1, 2), (1, 3), (2, 3), (1, 4), (4, 5)), s(f, t) AS (SELECT * FROM g UNION ALL SELECT g.* FROM g, s WHERE g.f = s.t) SEARCH DEPTH FIRST BY f, t, f SET seq SELECT * FROM s;
WITH RECURSIVE g(f, t) AS (VALUES (1, 2), (1, 3), (2, 3), (1, 4), (4, 5)), s(f, t) AS (SELECT * FROM g UNION ALL SELECT g.* FROM g, s WHERE g.f = s.t) SEARCH DEPTH FIRST BY f, x SET seq SELECT * FROM s;
WITH RECURSIVE g(f, t) AS (VALUES (1, 2), (1, 3), (2, 3), (1, 4), (4, 5)), s(f, t) AS (SELECT * FROM g UNION ALL SELECT g.* FROM g, s WHERE g.f = s.t) SEARCH DEPTH FIRST BY f SET t SELECT * FROM s;
WITH RECURSIVE g(f, t) AS (VALUES (1, 2), (1, 3), (2, 3), (1, 4), (4, 5)), s(f, t) AS (SELECT * FROM g UNION ALL SELECT * FROM g UNION ALL SELECT g.* FROM g, s WHERE g.f = s.t) SEARCH DEPTH FIRST BY f, t SET seq SELECT * FROM s;
WITH RECURSIVE g(f, t) AS (VALUES (1, 2), (1, 3), (2, 3), (1, 4), (4, 5)), s(f, t) AS (SELECT * FROM g UNION ALL SELECT g.* FROM g, s WHERE g.f = s.t) CYCLE f, t, f SET c USING p SELECT * FROM s;
WITH RECURSIVE g(f, t) AS (VALUES (1, 2), (1, 3), (2, 3), (1, 4), (4, 5)), s(f, t) AS (SELECT * FROM g UNION ALL SELECT g.* FROM g, s WHERE g.f = s.t) CYCLE f SET p USING p SELECT * FROM s;
WITH RECURSIVE g(f, t) AS (VALUES (1, 2), (1, 3), (2, 3), (1, 4), (4, 5)), s(f, t) AS (SELECT * FROM g UNION ALL SELECT g.* FROM g, s WHERE g.f = s.t) SEARCH DEPTH FIRST BY f SET c CYCLE f SET c USING p SELECT * FROM s;
WITH RECURSIVE g(f, t) AS (VALUES (1, 2), (1, 3), (2, 3), (1, 4), (4, 5)), s(f, t) AS (SELECT * FROM g UNION ALL SELECT g.* FROM g, s WHERE g.f = s.t) CYCLE f SET c TO true DEFAULT 55 USING p SELECT * FROM s;
WITH RECURSIVE g(f, t) AS (VALUES (1, 2), (1, 3), (2, 3), (1, 4), (4, 5)), s(f, t) AS (SELECT * FROM g UNION ALL SELECT g.* FROM g, s WHERE g.f = s.t) CYCLE f SET c TO 1 DEFAULT 0 USING p SELECT f, t, c, p FROM s ORDER BY p;
WITH s(f) AS (SELECT 1) SEARCH DEPTH FIRST BY f SET seq SELECT * FROM s;
