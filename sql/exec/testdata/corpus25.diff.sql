-- Wrong answers PostgreSQL's regression scripts found in session 25
-- (internal/sqldiff's corpus).
-- select_into.sql: INTO anywhere but the statement's own SELECT fails
-- 42601 in PostgreSQL's parse analysis; it was dropped and answered.
SELECT * FROM (SELECT 1 INTO f) bar;
SELECT * FROM (SELECT n INTO f FROM t1) bar;
SELECT (SELECT 1 INTO f);
SELECT 1 WHERE EXISTS (SELECT n INTO f FROM t1);
WITH c AS (SELECT 1 INTO f) SELECT * FROM c;
SELECT * FROM (SELECT 1 INTO f UNION SELECT 2) bar;
SELECT * FROM (SELECT 1 UNION SELECT 2 INTO f) bar;
SELECT 1 UNION SELECT 2 INTO f;
SELECT 1 UNION (SELECT 2 INTO f UNION SELECT 3);
