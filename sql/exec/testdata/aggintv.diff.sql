-- sum(interval) and avg(interval) (grouped, over joins, DISTINCT, FILTER,
-- empty input, NULLs, months and days that carry into fractions on
-- division, window frames) and their overflow error, compared with
-- PostgreSQL. Before, both aggregates were refused (0A000).
SELECT sum(ts - timestamp '2020-01-01'), avg(ts - timestamp '2020-01-01') FROM wd WHERE isfinite(ts);
SELECT id % 3, sum((id || ' mon 1 day 03:00:00.5')::interval), avg((id || ' mon 1 day 03:00:00.5')::interval) FROM wd GROUP BY 1;
SELECT sum(v::interval), avg(v::interval) FROM (VALUES ('1 sec'), ('2 sec'), (NULL), ('1 mon 3 days 04:05:06.789'), ('-7 days')) t(v);
SELECT avg(v::interval) FROM (VALUES ('1 mon'), ('1 mon 1 day'), ('2 days 1 hour')) t(v);
SELECT avg(v::interval), sum(DISTINCT v::interval), avg(v::interval) FILTER (WHERE v <> '1 year') FROM (VALUES ('1 year'), ('1 year'), ('5 mon 7 days'), ('3 hours')) t(v);
SELECT sum(v::interval), avg(v::interval) FROM (VALUES ('1 sec')) t(v) WHERE false;
SELECT sum(v::interval) FROM (VALUES ('178000000 years'), ('178000000 years')) t(v);
SELECT avg(v::interval) FROM (VALUES ('2147483647 days'), ('1 day')) t(v);
SELECT i, SUM(v::interval) OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM (VALUES(1,'1 sec'),(2,'2 sec'),(3,NULL),(4,NULL)) t(i,v);
SELECT i, AVG(v::interval) OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM (VALUES(1,'1 sec'),(2,'2 sec'),(3,NULL),(4,NULL)) t(i,v);
SELECT i, avg(v::interval) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), sum(v::interval) OVER (ORDER BY i) FROM (VALUES(1,'1 mon'),(2,'3 days 7 hours'),(3,'-1 mon'),(4,'1 year 1 sec')) t(i,v);
SELECT w.grp, sum((w.x || ' mon 5 min')::interval), avg(wd.ts - timestamp '2019-06-01') FROM w JOIN wd ON wd.id = w.k WHERE isfinite(wd.ts) GROUP BY w.grp;
