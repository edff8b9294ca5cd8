-- array_cat, array_append and array_prepend called by name (refused
-- before while their || forms answered), with untyped literals, NULLs,
-- empty arrays and columns.
SELECT array_cat(ARRAY[1], ARRAY[2,3]);
SELECT array_cat(ARRAY[1], '{2,3}');
SELECT array_cat('{}', ARRAY['a']);
SELECT array_cat(ARRAY[1], NULL), array_cat(NULL, ARRAY[2]);
SELECT array_cat(NULL::int[], NULL::int[]);
SELECT array_append(ARRAY[1,2], 3), array_append(ARRAY[1,2], NULL), array_append(NULL::int[], 3);
SELECT array_prepend(0, ARRAY[1,2]), array_prepend(NULL, ARRAY[1]), array_prepend(0, NULL::int[]);
SELECT array_append(ARRAY['a'], 'b'), array_prepend('z', ARRAY['a']);
SELECT array_append('{1,2}', 3);
SELECT a.id, array_append(a.ia, a.id), array_prepend(a.id, a.ia), array_cat(a.ia, a.ia) FROM arr a ORDER BY a.id;
SELECT a.id, array_append(a.ta, 'x'), array_cat(a.ta, '{y}') FROM arr a ORDER BY a.id;
SELECT array_cat('{1}', '{2}');
SELECT array_length(array_append(ARRAY[1], 2), 1), cardinality(array_cat(ARRAY[1], ARRAY[2]));
SELECT array_append('{a}', 'b'), array_prepend('z', '{a}');
