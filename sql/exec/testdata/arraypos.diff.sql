-- array_position / array_positions (arrayfuncs.c): IS NOT DISTINCT
-- FROM search, start positions, NULLs, empty arrays, the common type of
-- the array and the element; and multidimensional array constructors,
-- refused (arrays are one-dimensional here; never flattened).
SELECT array_position(ARRAY[1,2,3], 2);
SELECT array_position(ARRAY[1,2,3,2], 2, 3);
SELECT array_position(ARRAY[1,2,3,2], 2, 5);
SELECT array_position(ARRAY[1,2,3,2], 2, -5);
SELECT array_position(ARRAY[1,2,3], 4);
SELECT array_position(ARRAY[1,NULL,3], NULL);
SELECT array_position(ARRAY[1,2,3], NULL);
SELECT array_position(ARRAY[1,2,3], NULL, NULL);
SELECT array_position(ARRAY[1,2,3], 2, NULL);
SELECT array_position('{}'::int[], 2, NULL);
SELECT array_position(NULL::int[], 2);
SELECT array_position(NULL, 2);
SELECT array_position(ARRAY['a','b','c'], 'c');
SELECT array_position('{a,b,c}', 'b');
SELECT array_position('{1,2,3}', 3);
SELECT array_position(ARRAY[1,2,3], 2.0);
SELECT array_position(ARRAY[1.0,2.00,3], 2);
SELECT array_position(ARRAY[1::int8,2,3], 3::int2);
SELECT array_position(ARRAY['NaN'::float8, 0], 'NaN');
SELECT array_position(ARRAY['-0'::float8, 0], 0);
SELECT array_position(ARRAY['{"a":1}'::jsonb, '[1]'], '[1]');
SELECT array_position(ARRAY['{"a":1}'::json], '{"a":1}');
SELECT array_position(ARRAY[1,2], 'x');
SELECT array_position(1, 1);
SELECT array_position(ARRAY[1,2,3], 2, 1::int8);
SELECT array_positions(ARRAY[1,2,3,2,1], 2);
SELECT array_positions(ARRAY[1,2,3], 5);
SELECT array_positions(ARRAY[1,NULL,3,NULL], NULL);
SELECT array_positions(ARRAY[1,2,3], NULL);
SELECT array_positions('{}'::int[], 1);
SELECT array_positions(NULL::text[], 'a');
SELECT array_positions(ARRAY['a','b','a'], 'a');
SELECT id, array_position(ia, 2), array_positions(ia, 1), array_position(ta, 'b') FROM arr;
SELECT id, array_position(ia, id), array_positions(na, 1.5) FROM arr;
SELECT id FROM arr WHERE array_position(ia, 1) IS NOT NULL;
SELECT array_position(ARRAY['2020-01-01'::date], '2020-01-01');
SELECT ARRAY[[1,2],[3,4]] /* refused: multidimensional */;
SELECT ARRAY[ARRAY[1,2],ARRAY[3,4]] /* refused: multidimensional */;
SELECT ARRAY[[1,2],[3]] /* refused: multidimensional */;
SELECT '{{1,2},{3,4}}'::int[] /* refused: multidimensional */;
SELECT array_ndims(ARRAY[1,2]), array_dims(ARRAY[1,2]);
