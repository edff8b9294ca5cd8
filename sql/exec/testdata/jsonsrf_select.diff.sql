-- The json set-returning functions in a select list (ProjectSet):
-- records of jsonb_each and friends, field selection from them, several
-- of different lengths padded with NULLs, NULL and empty input, errors.
SELECT jsonb_each_text('{"a":1,"b":"x","c":null}'::jsonb);
SELECT jsonb_each('{"a":1,"b":"x","c":null,"d":[1,2],"e":{"f":"g h"}}'::jsonb);
SELECT json_each('{"a":1,"b":"x y","c":null}'::json);
SELECT json_each_text('{"a":1,"b":"x,y","c":null}'::json);
SELECT (jsonb_each_text('{"a":1,"b":2}'::jsonb)).key;
SELECT (jsonb_each_text('{"a":1,"b":2}'::jsonb)).key, (jsonb_each_text('{"a":1,"b":2}'::jsonb)).value;
SELECT (jsonb_each('{"a":1,"b":{"c":2}}'::jsonb)).value, (json_each('{"a":1}'::json)).value;
SELECT (jsonb_each_text('{"a":1}'::jsonb)).nope;
SELECT jsonb_array_elements('[1,"a",null,{"b":2}]'::jsonb), jsonb_array_elements_text('[1,"a",null]'::jsonb);
SELECT jsonb_object_keys('{"a":1,"b":2,"c":3}'::jsonb), jsonb_array_elements_text('["x"]'::jsonb);
SELECT jsonb_each('{"a":1,"b":2}'::jsonb), generate_series(1, 3);
SELECT jsonb_each('{}'::jsonb);
SELECT jsonb_each(NULL::jsonb), 1;
SELECT jsonb_each('[1]'::jsonb);
SELECT jsonb_array_elements('{"a":1}'::jsonb);
SELECT jsonb_object_keys('[1]'::jsonb);
SELECT jsonb_array_elements('5'::jsonb);
SELECT id, jsonb_each(j) FROM js;
SELECT id, (jsonb_each_text(j)).key, (jsonb_each_text(j)).value FROM js WHERE jsonb_typeof(j) = 'object';
SELECT id, jsonb_object_keys(j) FROM js WHERE jsonb_typeof(j) = 'object';
SELECT id, json_each_text(t) FROM js WHERE json_typeof(t) = 'object';
SELECT id, jsonb_array_elements(j), jsonb_array_length(j) FROM js WHERE jsonb_typeof(j) = 'array';
SELECT count(*), jsonb_each('{"a":1}'::jsonb) FROM js;
SELECT DISTINCT (jsonb_each_text(j)).key FROM js WHERE jsonb_typeof(j) = 'object';
