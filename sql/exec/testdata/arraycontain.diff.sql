-- @>, <@ and && on arrays (arraycontain.go): element equality of the
-- element type, NULL elements match nothing (a NULL in the contained array is never found), empty arrays, NULL operands.
SELECT a.id, b.id, a.ia @> b.ia, a.ia <@ b.ia, a.ia && b.ia, a.ta @> b.ta, a.ta && b.ta, a.na @> b.na, a.na && b.na FROM arr a, arr b;
SELECT id FROM arr WHERE ia @> ARRAY[1] ORDER BY id;
SELECT id FROM arr WHERE ta && '{x,b}' ORDER BY id;
SELECT id FROM arr WHERE '{1,2}' <@ ia ORDER BY id;
SELECT ARRAY[1,NULL] @> ARRAY[NULL::int], ARRAY[1,2] @> '{}'::int[], '{}'::int[] && ARRAY[1], ARRAY[1.0]::numeric[] @> ARRAY[1.00]::numeric[], NULL::int[] @> ARRAY[1], ARRAY['NaN'::float8] @> ARRAY['NaN'::float8];
SELECT ARRAY[[1,2],[3,4]] @> ARRAY[4,1] /* refused: multidimensional arrays */;
SELECT ARRAY[1,2,2] <@ ARRAY[2,1], ARRAY[3] && ARRAY[1,2,3];
SELECT ARRAY[1] @> ARRAY['a'];
SELECT ARRAY[1] @> ARRAY[1::int8];
