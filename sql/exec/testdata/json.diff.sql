-- json and jsonb, compared with PostgreSQL: the -> ->> #> #>> operators,
-- containment and existence, typeof/array_length/extract_path/pretty/
-- strip_nulls, building values from SQL values, errors.
SELECT id, j -> 'a', j -> 'b', j -> 'zz', j ->> 'a', j ->> 's', j ->> 'n', j -> 'n', j ->> 'b' FROM js;
SELECT id, j -> 0, j -> 1, j -> -1, j -> 9, j ->> 1, j ->> -4, j ->> -5 FROM js;
SELECT id, t -> 'a', t -> 'b', t ->> 'a', t -> 'n', t ->> 'n', t -> 0, t ->> 1, t -> 'tags' FROM js;
SELECT id, j #> '{b,2}', j #>> '{b,2,c}', j #> '{}', j #>> '{}', j #> '{meta,depth,x}', j #>> '{tags,-1}', j #> '{b,x}', j #> '{b,NULL}' FROM js;
SELECT id, t #> '{b,2}', t #>> '{b,2,c}', t #> '{}', t #>> '{tags,0}' FROM js;
SELECT id, jsonb_extract_path(j, 'b', '1'), jsonb_extract_path_text(j, 'meta', 'src'), json_extract_path(t, 'b'), json_extract_path_text(t, 'tags', '1') FROM js;
SELECT id, jsonb_typeof(j), json_typeof(t), jsonb_typeof(j -> 'a'), jsonb_typeof(j -> 'n') FROM js;
SELECT id, j @> '{"a": 1}', j @> '{"b": [2]}', j @> '{"b": [{"c": "x"}]}', j @> '{"b": 1}', j @> '1', j @> '[1]', j @> '"scalar"', j @> '{}', j <@ '{"a": 1, "zz": 2}' FROM js;
SELECT id, j @> '{"tags": ["blue"]}', j @> '{"price": 10.5}', j @> '{"meta": {"depth": {}}}', j @> '[[3]]', j @> '[3]', j @> '[{"k": true}]', j @> '{"n": null}' FROM js;
SELECT id, j ? 'a', j ? 'two', j ? 'scalar', j ? 'x', j ?| ARRAY['zz', 'tags'], j ?& ARRAY['a', 'b'], j ?| '{}', j ?& '{}', j ?& ARRAY['a', NULL] FROM js;
SELECT id FROM js WHERE j @> '{"meta": {"src": "web"}}';
SELECT id FROM js WHERE j ->> 'a' = '1';
SELECT id, jsonb_strip_nulls(j), json_strip_nulls(t) FROM js;
SELECT id, jsonb_pretty(j) FROM js;
SELECT jsonb_pretty('{"a": {}, "b": [], "c": [{}]}'), jsonb_pretty('[]'), jsonb_pretty('{}');
SELECT id, jsonb_array_length(j) FROM js WHERE id IN (2, 6);
SELECT jsonb_array_length('{}');
SELECT jsonb_array_length('1');
SELECT json_array_length(t) FROM js WHERE id = 6;
SELECT to_jsonb(1), to_jsonb('a"b'::text), to_jsonb(1.50), to_jsonb(true), to_jsonb('NaN'::numeric), to_json('x\y'::text), to_json(3::int8), to_jsonb(NULL::text);
SELECT jsonb_build_object('a', 1, 'b', 'x', 'a', 2, 'c', NULL, 'long', true), json_build_object('a', 1, 'b', 'x', 'a', 2), jsonb_build_object(), json_build_object();
SELECT jsonb_build_array(1, 'x', NULL, 2.5, false), json_build_array(1, 'x', NULL), jsonb_build_array(), json_build_array();
SELECT id, jsonb_build_object('id', id, 'j', j), json_build_object('id', id, 't', t), jsonb_build_array(j, id) FROM js;
SELECT jsonb_build_object('a');
SELECT jsonb_build_object(NULL, 1);
SELECT jsonb_build_object(1, 2, 2.5, 'x', true, 3);
SELECT '{"a":1}'::jsonb -> 'a', '[1,2]'::json -> 1, '{"a": {"b": 2}}'::jsonb #>> '{a,b}', '{"a": 1}'::jsonb ->> 'a';
SELECT id, j ->> 0, t -> 0, j #> '{0}', j #>> '{0}', t #> '{0}', j #> '{-1}' FROM js WHERE id IN (3, 7);
SELECT id, jsonb_extract_path(j), json_extract_path_text(t) FROM js;
