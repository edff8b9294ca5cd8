-- jsonb || jsonb and jsonb - text / integer / text[] compared with
-- PostgreSQL: objects merge (right wins), arrays and scalars
-- concatenate, deletion from objects and arrays, negative and
-- out-of-range indexes, NULL keys, scalars' errors.
SELECT '{"a": 1, "b": 2}'::jsonb || '{"b": 3.0, "c": null}', '[1, 2]'::jsonb || '[2, [3]]', '1'::jsonb || '2', '[1]'::jsonb || '{"a": 1}', '{"a": 1}'::jsonb || '[1]', '"x"'::jsonb || '{}', '[]'::jsonb || '[]', '{}'::jsonb || '{}';
SELECT id, j || '{"z": "é"}', j || '[0]', j || j FROM js;
SELECT id, j - 'a', j - 'two', j - 'zz' FROM js WHERE jsonb_typeof(j) IN ('object', 'array');
SELECT id, j - 0, j - 1, j - -1, j - 10, j - -10 FROM js WHERE jsonb_typeof(j) = 'array';
SELECT id, j - ARRAY['a', 'b'], j - ARRAY[NULL, 'n'], j - '{}'::text[] FROM js WHERE jsonb_typeof(j) IN ('object', 'array');
SELECT '["a", "b", "a", 1]'::jsonb - 'a', '{}'::jsonb - 'a', '[]'::jsonb - 0;
SELECT '1'::jsonb - 'a';
SELECT '"a"'::jsonb - 0;
SELECT '{"a": 1}'::jsonb - 0;
SELECT '1'::jsonb - ARRAY['a'];
SELECT NULL::jsonb || '1', '1'::jsonb - NULL::text;
