-- Named arguments of make_interval (defaults 0) and the make_* date/time
-- functions: skipped parameters, mixed positional and named, NULLs,
-- overflow, unknown and duplicate names.
SELECT make_interval(days => 3);
SELECT make_interval(years => 1, months => 2, weeks => 3, days => 4, hours => 5, mins => 6, secs => 7.5);
SELECT make_interval(secs => 1.5), make_interval(hours => -2), make_interval(mins => 90, days => 1);
SELECT make_interval(1, 2, days => 5);
SELECT make_interval(weeks => 2, years => 1);
SELECT make_interval(days => NULL);
SELECT make_interval(secs => 'NaN');
SELECT make_interval(days => id) FROM nums;
SELECT make_interval(), make_interval(1), make_interval(1, 2, 3, 4, 5, 6, 7.25);
SELECT make_interval(secs => 9223372036855) /* refused: majors differ */;
SELECT make_interval(months => 2147483647, days => -2147483648);
SELECT make_interval(day => 3);
SELECT make_interval(days => 3, days => 4);
SELECT make_interval(days => 1.5);
SELECT make_interval(days => '3');
SELECT make_date(year => 2020, month => 2, day => 29), make_date(2021, day => 1, month => 3);
SELECT make_date(year => 2021, month => 2, day => 29);
SELECT make_date(year => 2020, month => 2);
SELECT make_timestamp(year => 2020, month => 1, mday => 2, hour => 3, min => 4, sec => 5.5);
SELECT pg_catalog.make_interval(days => 2);
SELECT lower(string => 'X');
-- make_time, the jsonpath functions (vars and silent defaulted when
-- skipped), jsonb_set/jsonb_insert, the json accessors, set-returning
-- functions in FROM and in the select list; names of other majors.
SELECT make_time(hour => 10, min => 30, sec => 1.5), make_time(1, sec => 2, min => 3);
SELECT make_time(hour => 25, min => 0, sec => 0);
SELECT make_time(hour => 1, min => 2);
SELECT make_timestamptz(year => 2020, month => 1, mday => 2, hour => 3, min => 4, sec => 5, timezone => 'UTC');
SELECT id, jsonb_path_query_array(target => j, path => '$.a', silent => true) FROM js;
SELECT id, jsonb_path_exists(j, path => 'strict $.a.x', silent => true), jsonb_path_exists(j, '$.a') FROM js;
SELECT id, jsonb_path_match(target => j, path => '$.a > $min', vars => '{"min": 0}') FROM js WHERE id IN (1, 9);
SELECT jsonb_path_query_first(path => '$.b[*]', target => '{"b": [4, 5]}');
SELECT jsonb_path_query_array(target => '[1]', path => '$[*]', vars => '{}', silent => false);
SELECT jsonb_path_query_array(target => '[1]', path => 'strict $.a');
SELECT jsonb_path_query_array(target => '[1]', silent => true);
SELECT jsonb_path_query_array(target => '[1]', path => '$', silently => true);
SELECT * FROM jsonb_path_query(target => '{"a": [1, 2, 3]}', path => '$.a[*] ? (@ > $x)', vars => '{"x": 1}');
SELECT id, jsonb_path_query(target => j, path => '$.b[*]', silent => true) FROM js WHERE id < 3;
SELECT * FROM jsonb_each(from_json => '{"a": 1, "b": [2]}');
SELECT jsonb_array_elements_text(from_json => '[1, "x", null]');
SELECT jsonb_set(jsonb_in => '{"a": 1}', path => '{b}', replacement => '2'), jsonb_set('{"a": 1}', '{b}', '2', create_if_missing => false);
SELECT jsonb_insert(jsonb_in => '[1, 2]', path => '{0}', replacement => '9', insert_after => true);
SELECT jsonb_object_field(from_json => '{"k": 1}', field_name => 'k'), json_array_element_text(from_json => '[1, 2]', element_index => 1);
SELECT jsonb_extract_path(from_json => '{"k": 1}', path_elems => '{k}') /* refused: a VARIADIC parameter */;
SELECT regexp_replace(string => 'abc', pattern => 'b', replacement => 'x') /* refused: names differ by major, not known here */;
SELECT random(min => 1, max => 1) /* refused: names differ by major, not known here */;
