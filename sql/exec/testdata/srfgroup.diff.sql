-- GROUP BY the result of a select list's set-returning function (by
-- position or output name): PostgreSQL runs it below the grouping, so
-- the groups are of its rows.
SELECT jsonb_object_keys(j) AS k, count(*) FROM js WHERE jsonb_typeof(j) = 'object' GROUP BY 1;
SELECT jsonb_object_keys(j) AS k, count(*) FROM js WHERE jsonb_typeof(j) = 'object' GROUP BY k ORDER BY k;
SELECT unnest(ia) AS v, count(*), sum(id) FROM arr GROUP BY 1;
SELECT unnest(ta) AS v, count(*) FROM arr GROUP BY v HAVING count(*) > 1;
SELECT id % 2 AS p, unnest(ia) AS v, count(*) FROM arr GROUP BY 1, 2;
SELECT generate_series(1, 3) AS g, count(*) FROM nums GROUP BY 1;
SELECT unnest(ia) AS a, unnest(ta) AS b, count(*) FROM arr GROUP BY 1, 2;
SELECT jsonb_array_elements_text(j) AS e, count(*) FROM js WHERE jsonb_typeof(j) = 'array' GROUP BY 1;
SELECT (jsonb_each_text(j)).key AS k, count(*) FROM js WHERE jsonb_typeof(j) = 'object' GROUP BY 1;
SELECT unnest(ia) + 1 AS v, count(*) FROM arr GROUP BY 1;
SELECT unnest(ia) AS a, unnest(ta) AS b, count(*) FROM arr GROUP BY 1 /* refused: one of two */;
SELECT unnest(ia) AS a, count(*) FROM arr GROUP BY ROLLUP (1) /* refused: grouping sets */;
SELECT jsonb_object_keys(j) k, count(*) FROM js WHERE jsonb_typeof(j) = 'object' GROUP BY jsonb_object_keys(j) /* refused: an expression */;
SELECT unnest(ARRAY[count(*)::int, 2]) AS v FROM arr GROUP BY 1 /* refused: an aggregate argument */;
