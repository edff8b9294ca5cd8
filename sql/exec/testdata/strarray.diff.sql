-- string_to_array(text, text [, text]) → text[] (not strict): split at
-- each separator; NULL string NULL; '' → '{}'; NULL separator splits
-- into characters (multibyte ones whole); '' separator keeps the whole
-- string; elements equal to the null string become NULL.
select string_to_array('a,b,c', ',');
select string_to_array('a,b,,c,', ',');
select string_to_array(',', ',');
select string_to_array('a,b,,c', ',', '');
select string_to_array('a,b,,c', ',', 'b');
select string_to_array('a,b,,c', ',', null);
select string_to_array('abc', null);
select string_to_array('abc', null, 'b');
select string_to_array('abc', '');
select string_to_array('abc', '', 'abc');
select string_to_array('', ',');
select string_to_array('', null);
select string_to_array('', '');
select string_to_array(null, ',');
select string_to_array(null, null, null);
select string_to_array('1||2||||3', '||');
select string_to_array('aaa', 'aa');
select string_to_array('äöü€𝄞', null);
select string_to_array('ä€ö€€ü', '€');
select string_to_array('a b', ' ', 'NULL'), string_to_array('NULL', ',');
select string_to_array('x"y\z{}', ',');
select cardinality(string_to_array('a,b,c', ',')), (string_to_array('a,b,c', ','))[2];
select id, s, string_to_array(s, 'b'), string_to_array(v, null), string_to_array(v, s, 'd') from nums;
select name, string_to_array(name, 'b') from t2;
select string_to_array(1234, 2);
select string_to_array('a,b'::varchar, ','::bpchar);
select string_to_array('a,b', ',')::int[];
select string_to_array('1,2', ',')::int[];
select string_to_array(array['a'], ',');
select string_to_array('a');
