-- jsonb_set, jsonb_insert, #- and to_json[b]/json[b]_build_* of
-- dates, timestamps, floats, intervals and arrays, compared with
-- PostgreSQL.
SELECT id, jsonb_set(j, '{a}', '"x"'), jsonb_set(j, '{zz}', '[1]'), jsonb_set(j, '{zz}', '[1]', false), jsonb_set(j, '{b,0}', 'null'), jsonb_set(j, '{b,2,c}', '{"d": 1}') FROM js WHERE jsonb_typeof(j) = 'object';
SELECT id, jsonb_set(j, '{0}', '9'), jsonb_set(j, '{-1}', '9'), jsonb_set(j, '{10}', '9'), jsonb_set(j, '{-10}', '9'), jsonb_set(j, '{-10}', '9', false), jsonb_set(j, '{3,k}', 'false'), jsonb_set(j, '{2,0}', '"deep"') FROM js WHERE jsonb_typeof(j) = 'array';
SELECT jsonb_set('{}', '{a}', '1'), jsonb_set('[]', '{0}', '1'), jsonb_set('[]', '{5}', '1', false), jsonb_set('{"a": 1}', '{}', '2'), jsonb_set('{"a": {"b": 1}}', '{a,x,y}', '2'), jsonb_set('{"a": 1}', '{a,b}', '2');
SELECT jsonb_set('1', '{a}', '2');
SELECT jsonb_set('[1, 2]', '{x}', '2');
SELECT jsonb_set('{"a": [1]}', '{a, 99999999999}', '2');
SELECT jsonb_set('{"a": 1}', ARRAY[NULL, 'a'], '2');
SELECT jsonb_set('{"a": 1}', '{a}', NULL), jsonb_set(NULL, '{a}', '1');
SELECT jsonb_insert('[1, 2, 3]', '{1}', '"new"'), jsonb_insert('[1, 2, 3]', '{1}', '"new"', true), jsonb_insert('[1, 2, 3]', '{-1}', '"new"'), jsonb_insert('[1, 2, 3]', '{10}', '"new"'), jsonb_insert('[1, 2, 3]', '{-10}', '"new"', true), jsonb_insert('{"a": [0]}', '{a, 0}', '1'), jsonb_insert('{"a": 1}', '{b}', '2'), jsonb_insert('[]', '{0}', '1');
SELECT jsonb_insert('{"a": 1}', '{a}', '2');
SELECT jsonb_insert('"s"', '{0}', '2');
SELECT id, j #- '{a}', j #- '{b,1}', j #- '{b,-1}', j #- '{b,2,c}', j #- '{nope,x}', j #- '{}' FROM js WHERE jsonb_typeof(j) = 'object';
SELECT id, j #- '{0}', j #- '{-1}', j #- '{9}', j #- '{-9}', j #- '{3,k}' FROM js WHERE jsonb_typeof(j) = 'array';
SELECT '[]'::jsonb #- '{a}', '{}'::jsonb #- '{a}', '{"a": 1}'::jsonb #- '{a,b}';
SELECT '[1]'::jsonb #- '{a}';
SELECT '1'::jsonb #- '{a}';
SELECT '{"a": 1}'::jsonb #- ARRAY['a', NULL], '{"a": {"b": 1}}'::jsonb #- ARRAY['a', NULL];
SELECT id, to_json(ts), to_jsonb(ts), to_json(d), to_jsonb(d), to_json(f), to_jsonb(f), to_json(t), to_jsonb(t) FROM wd;
SELECT id, to_json(tz), to_jsonb(tz), to_json(ts), json_build_object('t', tz, 'd', d, 'v', v), jsonb_build_object('t', tz, 'd', d, 'v', v), json_build_array(ts, d, v), jsonb_build_array(ts, tz) FROM ev;
SELECT to_json(timestamptz '0044-03-15 12:00:00+00 BC'), to_json(timestamp '0044-03-15 12:00:00.5 BC'), to_jsonb(date '0044-03-15 BC'), to_json(interval '1 day 02:03:04'), to_jsonb(interval '-1 mon'), to_json(time '12:34:56.789');
SELECT to_json(1.5::float8), to_jsonb(1e300::float8), to_json('NaN'::float8), to_jsonb('-Infinity'::float8), to_json(1.25::float4), to_jsonb(0.1::float4), to_json(-0.0::float8);
SELECT id, to_json(ia), to_jsonb(ia), to_json(ta), to_jsonb(ta), to_json(na), to_jsonb(na), json_build_object('a', ia), jsonb_build_array(ta, na) FROM arr;
SELECT to_json(ARRAY[1.5::float8, NULL]), to_json(ARRAY[date '2024-01-01']), to_jsonb(ARRAY[timestamp '2024-01-01 10:00']), to_json('{}'::int[]), to_jsonb('{}'::text[]), to_json(ARRAY['{"a":1}'::json, '[2]']), to_jsonb(ARRAY['{"a":1}'::jsonb]);
SELECT json_agg(ts ORDER BY id), jsonb_agg(ts ORDER BY id), json_agg(d ORDER BY id), jsonb_agg(f ORDER BY id), json_object_agg(id, t ORDER BY id), jsonb_object_agg(id, ts ORDER BY id) FROM wd;
SELECT json_agg(NULL::int[]), json_agg(ia ORDER BY id DESC) FROM arr;
SELECT jsonb_agg(ia ORDER BY id), json_agg(ta ORDER BY id) FROM arr;
SELECT jsonb_set('[[1, [2]], {"a": []}]', '{0,1,0}', '"x"'), jsonb_set('[[1, [2]], {"a": []}]', '{1,a,0}', '"y"'), jsonb_set('[[1, [2]], {"a": []}]', '{1,a,-1}', '"z"'), jsonb_insert('{"a": {"b": [1, 2]}}', '{a,b,-1}', '3', true), jsonb_insert('{"a": {"b": [1, 2]}}', '{a,c}', '3'), jsonb_set('{"a": 1}', '{ 0}', '2'), jsonb_set('[1, 2]', '{ +1}', '9'), jsonb_set('[1, 2]', '{ -1}', '9');
SELECT jsonb_set('[1, 2]', '{1 }', '9');
SELECT jsonb_set('[1, 2]', '{+-1}', '9');
SELECT jsonb_set('[1, 2]', '{""}', '9');
SELECT '[1, [2, 3]]'::jsonb #- '{1,0}', '[1, [2, 3]]'::jsonb #- '{1,x}', '{"a": {"b": {"c": 1}}}'::jsonb #- '{a,b,c}', '{"a": 1}'::jsonb #- '{a}';
SELECT '[1, [2, 3]]'::jsonb #- '{x,0}';
