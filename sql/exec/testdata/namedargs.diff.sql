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
SELECT lower(string => 'X') /* refused: named arguments */;
