-- Slices of one-dimensional arrays: a[lo:hi], a[:hi], a[lo:], a[:];
-- bounds clamped to the array's, nothing left '{}', a NULL array or
-- bound NULL; the result starts at 1.
select (array[1,2,3,4])[2:3];
select (array[1,2,3,4])[:2];
select (array[1,2,3,4])[2:];
select (array[1,2,3,4])[:];
select (array[1,2,3,4])[0:2], (array[1,2,3,4])[-5:2], (array[1,2,3,4])[3:100];
select (array[1,2,3,4])[3:2], (array[1,2,3,4])[5:], (array[1,2,3,4])[:0], (array[1,2,3,4])[-3:-1];
select (array[1,2,3,4])[2:2], (array[1,2,3,4])[4:4];
select (array[1,2,3,4])[null:2], (array[1,2,3,4])[1:null], (array[1,2,3,4])[null:];
select (null::int[])[1:2];
select ('{}'::int[])[1:2], ('{}'::text[])[:];
select ('{a,b,c}'::text[])[2:];
select (array['ä','€',null,'𝄞'])[2:4];
select (array[1,2,3,4])[-2147483648:2147483647];
select (array[1,2,3,4])[1:2147483648];
select (array[1,2,3,4])[1::int8:2::int2];
select (array[1,2,3,4])[2:3][1] /* refused: a second subscript of a one-dimensional array */;
select (array[1,2,3,4])[2:3] = array[2,3], array_dims((array[1,2,3,4])[2:3]), array_lower((array[1,2,3,4])[2:3], 1);
select ((array[1,2,3,4])[2:3])[1];
select (array[1,2,3,4])['1':'2'];
select (array[1,2,3,4])[1.5:2] /* refused: numeric subscripts */;
select id, ia, ia[1:2], ia[2:], ia[:1], ta[2:3], na[:], ia[id:], ia[:id - 3] from arr;
select id, ia[1:2] || ia[3:] from arr;
select (string_to_array('a,b,c,d', ','))[2:3];
select (array[1,2,3])[1:2] from nums;
select s[1:2] from nums;
