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
-- string_to_table (arrays.sql's refusals): string_to_array's elements
-- as rows; not strict — a NULL string gives no rows, a NULL separator
-- splits into characters, the third argument's matches are NULL.
select v, v is null as "is null" from string_to_table('1|2|3', '|') g(v);
select v, v is null as "is null" from string_to_table('1|2|3|', '|') g(v);
select v, v is null as "is null" from string_to_table('1||2|3||', '||') g(v);
select v, v is null as "is null" from string_to_table('1|2|3', '') g(v);
select v, v is null as "is null" from string_to_table('', '|') g(v);
select v, v is null as "is null" from string_to_table('1|2|3', NULL) g(v);
select v, v is null as "is null" from string_to_table(NULL, '|') g(v);
select v, v is null as "is null" from string_to_table('abc', '', 'abc') g(v);
select v, v is null as "is null" from string_to_table('1,2,3,4,*,6', ',', '*') g(v);
select v, v is null as "is null" from string_to_table('1,2,3,4,,6', ',', '') g(v);
select v, v is null as "is null" from string_to_table('a,b', ',', NULL) g(v);
select * from string_to_table('x,y,,z', ',') with ordinality;
select string_to_table('a b c', ' '), string_to_table('x', NULL);
select string_to_table(NULL, ','), 1;
select t1.name, p from t1, string_to_table(t1.name, 'e') p;
select name, string_to_table(name, NULL) from t1 where n < 3;
select string_to_table('a|b'::varchar, '|'::char(1));
select string_to_table(1, 2);
select * from string_to_table('a', 'b', 'c', 'd');
select string_to_table('ü,ö', NULL), string_to_table('αβγ', NULL, 'β');
