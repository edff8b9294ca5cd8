-- VARIADIC in calls of concat, concat_ws and format: the array's
-- elements are the variadic arguments (regression text.sql).
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
select format('%s|%s', variadic array['a'::char(3), 'b']);
select concat(variadic array[name, n::text]) from t1 order by 1;
select concat_ws('-', variadic array[n::text, null, name]) from t1 order by 1;
select format(name || ' %s', variadic '{}'::int[]) from t1 order by 1;
select format('[%s]', variadic array[1.50, 2]);
