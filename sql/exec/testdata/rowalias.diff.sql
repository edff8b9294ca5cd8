-- A table's whole-row value is of its composite type: column aliases do
-- not rename its fields (rowtypes.sql:421); a subquery's exposed names do.
SELECT row_to_json(i) FROM t1 i(x, y) ORDER BY 1::text;
SELECT row_to_json(i) FROM t2 i(x) ORDER BY 1::text;
SELECT to_jsonb(i) FROM t3 AS i(a, b) ORDER BY 1::text;
SELECT json_agg(i ORDER BY i.x) FROM t1 i(x, y);
SELECT row_to_json(ss) FROM (SELECT name AS a, n AS b FROM t1) AS ss ORDER BY 1::text;
SELECT row_to_json(ss) FROM (SELECT name, n FROM t2) AS ss(p, q) ORDER BY 1::text;
SELECT row_to_json(i) FROM t1 i ORDER BY 1::text;
