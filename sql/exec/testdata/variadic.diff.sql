-- Calls with VARIADIC (f(…, VARIADIC array)) of concat, concat_ws and
-- format: literal and column arrays, NULL and empty arrays, NULL
-- elements, typed and untyped; the errors (not an array, too few
-- arguments for format). Before, every one was refused (0A000).
select concat(variadic array[1,2,3]);
select concat_ws(',', variadic array[1,2,3]);
select concat_ws(',', variadic NULL::int[]);
select concat(variadic NULL::int[]) is NULL;
select concat(variadic '{}'::int[]) = '';
select format('%s, %s', variadic array['Hello','World']);
select format('%s, %s', variadic array[1, 2]);
select format('%s, %s', variadic array[true, false]);
select format('%s, %s', variadic array[true, false]::text[]);
select format('%2$s, %1$s', variadic array['first', 'second']);
select format('%2$s, %1$s', variadic array[1, 2]);
select format('Hello', variadic NULL::int[]);
SELECT id, concat(VARIADIC ia), concat_ws('|', VARIADIC ta), format('%s-%s', VARIADIC na) FROM arr;
SELECT id, concat_ws(NULL, VARIADIC ta), concat_ws(s, VARIADIC ARRAY[s, v, c]) FROM arr JOIN nums USING (id);
SELECT concat(VARIADIC ARRAY[NULL, 'a', NULL]), concat_ws('+', VARIADIC ARRAY[NULL::text, 'b']);
SELECT format(NULL, VARIADIC ARRAY[1]), format('%s', VARIADIC ARRAY[]::int[]);
SELECT format('%s %s', VARIADIC ARRAY[1]);
SELECT concat(VARIADIC 5);
SELECT format('%1$s %1$s', VARIADIC ARRAY[d]) FROM nums;
SELECT concat(VARIADIC ARRAY[f, 1.5]), concat(VARIADIC ARRAY[dt]) FROM nums;
select format('%s|%s', variadic array['a'::char(3), 'b']);
select concat(variadic array[name, n::text]) from t1 order by 1;
select concat_ws('-', variadic array[n::text, null, name]) from t1 order by 1;
select format(name || ' %s', variadic '{}'::int[]) from t1 order by 1;
select format('[%s]', variadic array[1.50, 2]);
SELECT concat('x', VARIADIC ARRAY[1]), 1;
