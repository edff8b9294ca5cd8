-- json_object(text[]) and json_object(text[], text[]) and their jsonb
-- twins: string values, NULL values null, NULL keys 22004, odd and
-- mismatched arrays 2202E, '{}' an empty object; jsonb dedupes (last
-- wins) and orders keys. Two-dimensional arrays are refused where the
-- engine reads the array.
select json_object('{a,1,b,2,3,NULL,"d e f","a b c"}');
select json_object('{a,1,b,2}'::text[]);
select json_object('{}');
select json_object('{}'::text[]);
select json_object('{a}');
select json_object('{a,b,c}');
select json_object('{NULL,1}');
select json_object('{a,NULL}');
select json_object('{a,1,a,2}');
select json_object(array['a"b', 'c\d', e'tab\there', e'nl\n', 'ä€', '']);
select json_object(array[1,2]::text[]);
select json_object(null::text[]);
select json_object('{a,b,"a b c"}', '{a,1,1}');
select json_object('{a,b}', '{1,2}');
select json_object('{a,b}', '{1}');
select json_object('{a}', '{1,2}');
select json_object('{}', '{}');
select json_object('{}'::text[], '{a}');
select json_object('{a}', '{}'::text[]);
select json_object('{a,NULL}', '{1,2}');
select json_object('{a,b}', '{NULL,2}');
select json_object('{a,a}', '{1,2}');
select json_object(null, '{1}');
select json_object('{a}', null::text[]);
select jsonb_object('{a,1,b,2,3,NULL,"d e f","a b c"}');
select jsonb_object('{}');
select jsonb_object('{a}');
select jsonb_object('{NULL,1}');
select jsonb_object('{a,1,a,2}');
select jsonb_object('{bb,1,a,2,ccc,3,c,4}');
select jsonb_object(array['a"b', 'c\d', e'tab\there', e'nl\n', 'ä€', '']);
select jsonb_object(null::text[]);
select jsonb_object('{a,b,"a b c"}', '{a,1,1}');
select jsonb_object('{a,b}', '{1}');
select jsonb_object('{}', '{}');
select jsonb_object('{}'::text[], '{a}');
select jsonb_object('{a,NULL}', '{1,2}');
select jsonb_object('{a,a,b}', '{1,2,3}');
select jsonb_object('{a,b}', '{NULL,2}');
select json_object('{a,1}') ->> 'a', jsonb_object('{a,1}') -> 'a';
select json_object(string_to_array('k1,v1,k2,v2', ','));
/* refused: a two-dimensional array */ select json_object('{{a,1},{b,2}}');
/* refused: a two-dimensional array */ select jsonb_object('{{a,1},{b,2}}');
