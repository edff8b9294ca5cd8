-- The json set-returning functions compared with PostgreSQL: in FROM
-- (column names, aliases, WITH ORDINALITY), with LATERAL over a table,
-- in the select list; NULLs, empty containers, duplicate json keys,
-- unicode and escapes, numbers keeping their scale, the shape errors.
SELECT * FROM jsonb_each('{"b": 1, "a": [1, 2], "c": null, "é": "x\"y", "n": 1.50}');
SELECT * FROM jsonb_each_text('{"b": 1, "a": [1, 2], "c": null, "é": "x\"y", "n": 1.50}');
SELECT * FROM json_each('{"b":1, "a" : [1,2], "b": null, "s": "\u00e9"}');
SELECT * FROM json_each_text('{"b":1, "a" : [1,2], "b": null, "s": "\u00e9"}');
SELECT * FROM jsonb_each('{}');
SELECT * FROM jsonb_array_elements('[1, "a", null, [], {"x": 1.0}]');
SELECT * FROM jsonb_array_elements_text('[1, "a", null, [], {"x": 1.0}, "\u00e9"]');
SELECT * FROM json_array_elements('[1, "a" , null,[ ], {"x":1.0}]');
SELECT * FROM json_array_elements_text('[1, "a", null, [], {"x": 1.0}]');
SELECT * FROM jsonb_array_elements('[]');
SELECT * FROM jsonb_object_keys('{"bb": 1, "a": 2, "c": {"d": 3}}');
SELECT * FROM json_object_keys('{"bb": 1, "a": 2, "bb": 3}');
SELECT * FROM jsonb_each('{"a": 1}') AS e;
SELECT * FROM jsonb_each('{"a": 1}') AS e(k, v);
SELECT * FROM jsonb_array_elements('[1, 2]') AS x;
SELECT * FROM jsonb_object_keys('{"a": 1}') AS x;
SELECT * FROM jsonb_array_elements('[1, 2]') WITH ORDINALITY;
SELECT * FROM jsonb_each('{"a": 1, "b": 2}') WITH ORDINALITY AS e(k, v, n);
SELECT js.id, e.key, e.value FROM (SELECT * FROM js WHERE jsonb_typeof(j) = 'object') js, jsonb_each(js.j) e;
SELECT js.id, e.* FROM (SELECT * FROM js WHERE json_typeof(t) = 'object') js, LATERAL json_each_text(js.t) e;
SELECT js.id, x.value FROM js CROSS JOIN LATERAL jsonb_array_elements(js.j -> 'b') x;
SELECT js.id, k FROM (SELECT * FROM js WHERE jsonb_typeof(j) = 'object') js, jsonb_object_keys(js.j) k;
SELECT js.id, x.value FROM js LEFT JOIN LATERAL jsonb_array_elements_text(js.j -> 'tags') x ON true;
SELECT id, jsonb_array_elements(j -> 'b') FROM js;
SELECT id, jsonb_object_keys(j) FROM js WHERE jsonb_typeof(j) = 'object';
SELECT id, json_array_elements_text(t) FROM js WHERE json_typeof(t) = 'array';
SELECT jsonb_array_elements_text(NULL);
SELECT * FROM jsonb_each(NULL);
SELECT * FROM jsonb_each('[1]');
SELECT * FROM jsonb_each('1');
SELECT * FROM json_each('[1]');
SELECT * FROM json_each('"x"');
SELECT * FROM jsonb_array_elements('{"a": 1}');
SELECT * FROM jsonb_array_elements('1');
SELECT * FROM json_array_elements('{"a": 1}');
SELECT * FROM json_array_elements('null');
SELECT * FROM jsonb_object_keys('[1]');
SELECT * FROM jsonb_object_keys('1');
SELECT * FROM json_object_keys('[1]');
SELECT * FROM json_object_keys('1');
SELECT count(*), sum((e.value)::int) FROM (SELECT * FROM jo WHERE jsonb_typeof(j) = 'object') jo, jsonb_each(jo.j) e WHERE jsonb_typeof(e.value) = 'number';
