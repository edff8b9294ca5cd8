-- jsonb equality, ordering and hashing compared with PostgreSQL
-- (compareJsonbContainers): the kind order object > array > boolean >
-- number > string > null, containers by size first, the empty top-level
-- array below every scalar, numbers by value (1.0 = 1), strings by
-- bytes (the test cluster is COLLATE "C"), unicode and escapes.
SELECT a.id, b.id, a.j = b.j, a.j <> b.j, a.j < b.j, a.j <= b.j, a.j > b.j, a.j >= b.j FROM jo a, jo b;
SELECT id, rank() OVER (ORDER BY j), rank() OVER (ORDER BY j DESC), rank() OVER (ORDER BY j NULLS FIRST) FROM jo;
SELECT a.id, b.id FROM jo a JOIN jo b ON a.j = b.j;
SELECT a.id, b.id FROM jo a LEFT JOIN jo b ON a.j = b.j AND a.id <> b.id;
SELECT count(*), min(id), max(id) FROM jo GROUP BY j;
SELECT count(DISTINCT j), count(j), count(*) FROM jo;
SELECT count(*) FROM (SELECT DISTINCT j FROM jo) s;
SELECT count(*) FROM (SELECT j FROM jo UNION SELECT j FROM js) s;
SELECT count(*) FROM (SELECT j FROM jo INTERSECT SELECT j FROM js) s;
SELECT count(*) FROM (SELECT j FROM jo EXCEPT SELECT j FROM js) s;
SELECT id FROM jo WHERE j IN ('1', '[]', '{"a": 1}', '"é"');
SELECT id FROM jo WHERE j NOT IN ('1', '[]');
SELECT id FROM jo WHERE j > '1' AND j < '[]';
SELECT id FROM jo WHERE j BETWEEN '[]' AND '{}';
SELECT id FROM jo WHERE j = ANY (ARRAY['0'::jsonb, '-0.00', 'false']);
SELECT id, j = '1.000'::jsonb, j < 'null', j > '{}' FROM jo;
SELECT greatest('1'::jsonb, '"a"', 'null'), least('[]'::jsonb, '1', 'null'), greatest('{"a": 1}'::jsonb, '{"a": 2}');
SELECT '1.0'::jsonb = '1'::jsonb, '[1.0, {"a": 2.50}]'::jsonb = '[1, {"a": 2.5}]'::jsonb, '{"a":1,"a":2}'::jsonb = '{"a": 2}';
SELECT '[]'::jsonb < '1', '[]'::jsonb < 'null', '[1]'::jsonb > '1', '[1,2]'::jsonb > '{}', '{}'::jsonb > '[1,2,3]';
SELECT ARRAY['1'::jsonb, '[]'] = ARRAY['1.0'::jsonb, '[]'], ARRAY['1'::jsonb] < ARRAY['"a"'::jsonb];
SELECT a.id, b.id FROM jo a JOIN js b ON a.j = b.j;
SELECT id FROM jo WHERE j = (SELECT j FROM js WHERE id = 7);
SELECT id FROM jo WHERE j IN (SELECT j FROM js);
SELECT '1'::json = '1'::json;
SELECT count(*) FROM jo GROUP BY t;
SELECT DISTINCT t FROM jo;
SELECT id FROM jo ORDER BY t;
SELECT min(j) FROM jo;
SELECT max(j) FROM jo;
