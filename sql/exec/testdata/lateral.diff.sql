-- LATERAL: subqueries and set-returning functions reading the FROM items
-- before them, in FROM lists and on the right of INNER/LEFT JOINs with
-- ON conditions, compared with PostgreSQL row for row.
SELECT a.id, u FROM arr a, unnest(a.ia) u;
SELECT a.id, u FROM arr a, LATERAL unnest(a.ta) AS u;
SELECT a.id, x.v, x.o FROM arr a, unnest(a.ia) WITH ORDINALITY AS x(v, o);
SELECT a.id, x.v, x.o FROM arr a JOIN LATERAL unnest(a.ia) WITH ORDINALITY AS x(v, o) ON true;
SELECT a.id, x.v, x.o FROM arr a LEFT JOIN LATERAL unnest(a.ia) WITH ORDINALITY AS x(v, o) ON true;
SELECT a.id, x.v, x.o FROM arr a LEFT JOIN LATERAL unnest(a.ia) WITH ORDINALITY AS x(v, o) ON x.v > 1;
SELECT a.id, x.v FROM arr a JOIN LATERAL unnest(a.ia) AS x(v) ON x.v > a.id;
SELECT a.id, x.v FROM arr a LEFT JOIN LATERAL unnest(a.na) AS x(v) ON x.v > a.id - 1;
SELECT a.id, x.v FROM arr a CROSS JOIN LATERAL unnest(a.ia) AS x(v) WHERE x.v IS NOT NULL;
SELECT a.id, g FROM arr a, generate_series(1, a.id) g;
SELECT a.id, g FROM arr a, generate_series(a.id, 10, a.id + 1) g;
SELECT a.id, g FROM arr a, generate_series(1, cardinality(a.ia)) g;
SELECT a.id, g FROM arr a LEFT JOIN generate_series(2, a.id) g ON true;
SELECT a.id, g, o FROM arr a, generate_series(1.5, a.id) WITH ORDINALITY AS s(g, o);
SELECT a.id, u, g FROM arr a, unnest(a.ia) u, generate_series(1, u) g;
SELECT a.id, u, g FROM arr a JOIN LATERAL unnest(a.ia) u ON true JOIN LATERAL generate_series(1, u) g ON g < 3;
SELECT count(*), sum(u) FROM arr a, unnest(a.ia) u;
SELECT u, count(*) FROM arr a, unnest(a.ia) u GROUP BY u;
SELECT a.name, a.n, x.m FROM t1 a JOIN LATERAL (SELECT b.n AS m FROM t2 b WHERE b.n > a.n) x ON x.m < a.n + 20;
SELECT a.name, a.n, x.m FROM t1 a LEFT JOIN LATERAL (SELECT b.n AS m FROM t2 b WHERE b.n > a.n) x ON x.m < a.n + 20;
SELECT a.name, a.n, x.m FROM t1 a LEFT JOIN LATERAL (SELECT b.n AS m FROM t2 b WHERE b.n > a.n ORDER BY b.n LIMIT 1) x ON true;
SELECT a.name, x.c FROM t1 a LEFT JOIN LATERAL (SELECT count(*) AS c FROM t2 b WHERE b.name = a.name) x ON x.c > 0;
SELECT a.name, x.m FROM t1 a JOIN t2 b ON a.name = b.name JOIN LATERAL (SELECT a.n + b.n AS m) x ON true;
SELECT a.name, x.m FROM t1 a, t2 b JOIN LATERAL (SELECT a.n + b.n AS m) x ON x.m > 0;
SELECT a.name, x.m FROM t1 a JOIN LATERAL (SELECT b.n AS m FROM t2 b WHERE b.name = a.name) x USING (name);
SELECT a.name, x.name FROM t1 a LEFT JOIN LATERAL (SELECT b.name FROM t2 b WHERE b.n = a.n) x USING (name);
SELECT a.name, x.m FROM t1 a RIGHT JOIN LATERAL (SELECT a.n AS m) x ON true;
SELECT a.name, x.m FROM t1 a FULL JOIN LATERAL (SELECT a.n AS m) x ON true;
SELECT a.name FROM t1 a JOIN t2 b ON b.n = x.m JOIN LATERAL (SELECT a.n AS m) x ON true;
SELECT (SELECT sum(g) FROM generate_series(1, a.id) g) FROM arr a;
SELECT (SELECT max(u) FROM unnest(a.ta) u), (SELECT array_agg(u ORDER BY u) FROM unnest(a.ia) u) FROM arr a;
SELECT a.id, x.v FROM arr a, LATERAL (SELECT max(v) AS v FROM unnest(a.ia) v) x;
SELECT a.id FROM arr a WHERE EXISTS (SELECT 1 FROM unnest(a.ia) v WHERE v = 2);
SELECT * FROM unnest(ARRAY[1,2]) u, LATERAL (SELECT u * 10 AS t) x;
SELECT u FROM unnest(u.x) u;
