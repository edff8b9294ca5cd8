-- Column names of scalar subqueries by major: before 15 TRUE and FALSE
-- are casts of strings ('t'::bool), named bool, inside a subquery too.
SELECT (SELECT true);
SELECT (SELECT (SELECT false));
SELECT ((SELECT true));
SELECT (SELECT true AS y);
SELECT (SELECT x FROM (SELECT true) s(x));
SELECT (SELECT true)::int4;
SELECT CASE WHEN true THEN 1 ELSE (SELECT 1) END;
SELECT CASE WHEN true THEN true ELSE (SELECT true) END;
SELECT CASE WHEN true THEN 1 ELSE true::int4 END;
SELECT (true);
SELECT (SELECT 1);
SELECT (SELECT true FROM w LIMIT 1) FROM w WHERE id = 1;
SELECT x FROM (SELECT (SELECT true)) s(x);
SELECT * FROM (SELECT (SELECT false)) s;
SELECT (SELECT false) UNION SELECT (SELECT true) ORDER BY 1;
