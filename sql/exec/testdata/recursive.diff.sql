-- Recursive terms that are set operations or hold WITH queries: the term
-- runs afresh each round, its WITH queries and subqueries over that
-- round's working table (PostgreSQL rescans it).
WITH RECURSIVE outermost(x) AS (SELECT 1 UNION (WITH innermost AS (SELECT 2) SELECT * FROM outermost UNION SELECT * FROM innermost)) SELECT * FROM outermost ORDER BY 1;
WITH RECURSIVE t(n) AS (SELECT 1 UNION (WITH w AS (SELECT n FROM t) SELECT n + 1 FROM w WHERE n < 5)) SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL (WITH w AS (SELECT n FROM t), v AS (SELECT n * 2 AS m FROM w) SELECT m + 1 FROM v WHERE m < 40)) SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION (SELECT n + 1 FROM t WHERE n < 4 UNION ALL SELECT 100)) SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL (SELECT n + 1 FROM t WHERE n < 5 INTERSECT SELECT generate_series(1, 3))) SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL (SELECT n + 1 FROM t WHERE n < 6 EXCEPT SELECT 4)) SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION (WITH w AS (SELECT n FROM t) SELECT n + 1 FROM w WHERE n < (SELECT max(n) + 3 FROM w) AND n < 6)) SELECT * FROM t;
WITH RECURSIVE t(n, s) AS (SELECT 1, 'a'::text UNION ALL (WITH w AS (SELECT * FROM t WHERE n < 3) SELECT n + 1, s || 'b' FROM w UNION ALL SELECT n + 1, s || 'c' FROM t1, w WHERE w.n = 1)) SELECT * FROM t;
-- A recursive UNION (not UNION ALL) hashes its rows: over a type without
-- a hash opclass PostgreSQL fails to plan it (with.sql:35).
WITH RECURSIVE t(n) AS (VALUES (1::money) UNION SELECT n+1::money FROM t WHERE n < 100::money) SELECT sum(n) FROM t;
WITH RECURSIVE t(n) AS (VALUES (ARRAY[1::money]) UNION SELECT ARRAY[n[1]+1::money] FROM t WHERE n[1] < 5::money) SELECT count(*) FROM t;
WITH RECURSIVE t(n) AS (VALUES (1::money) UNION ALL SELECT n+1::money FROM t WHERE n < 5::money) SELECT sum(n) FROM t;
