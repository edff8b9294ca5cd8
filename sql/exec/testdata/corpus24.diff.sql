-- Wrong answers PostgreSQL's regression scripts found in session 24
-- (internal/sqldiff's corpus, timestamp/timestamptz/jsonb/regex.sql).
-- The epoch of a timestamp past 2^63 microseconds after 1970: numeric
-- exact, float8 from the float timestamp (it overflowed int64).
SELECT date_part('epoch', '294270-01-01 00:00:00'::timestamp), extract(epoch from '294270-01-01 00:00:00'::timestamp);
SELECT date_part('epoch', '294270-01-01 00:00:00+00'::timestamptz), extract(epoch from '294270-01-01 00:00:00+00'::timestamptz);
SELECT extract(epoch from '294276-12-31 23:59:59.999999'::timestamp), date_part('epoch', '294276-12-31 23:59:59.999999'::timestamp);
SELECT extract(epoch from '292277-01-01'::timestamp), extract(epoch from '4713-01-01 BC'::timestamp);
-- make_timestamptz's zone: a numeric offset is ISO (+2 is east), not
-- POSIX as AT TIME ZONE reads it; a leading digit and an offset out of
-- range fail 22023.
SELECT make_timestamptz(1973, 07, 15, 08, 15, 55.33, '+2') = '1973-07-15 08:15:55.33+02'::timestamptz;
SELECT make_timestamptz(1973, 07, 15, 08, 15, 55.33, '-2') = '1973-07-15 08:15:55.33-02'::timestamptz;
SELECT make_timestamptz(1973, 07, 15, 08, 15, 55.33, '+02:30')::text, make_timestamptz(1973, 07, 15, 08, 15, 55.33, '-0530')::text;
SELECT make_timestamptz(1973, 07, 15, 08, 15, 55.33, '+2:30:15')::text, make_timestamptz(1973, 07, 15, 08, 15, 55.33, '+')::text;
SELECT make_timestamptz(1973, 07, 15, 08, 15, 55.33, '-15:59:59')::text, make_timestamptz(1973, 07, 15, 08, 15, 55.33, 'UTC')::text;
SELECT make_timestamptz(1973, 07, 15, 08, 15, 55.33, '2');
SELECT make_timestamptz(2014, 12, 10, 10, 10, 10, '+16');
SELECT make_timestamptz(2014, 12, 10, 10, 10, 10, '-16');
SELECT make_timestamptz(2014, 12, 10, 10, 10, 10, '+1:60');
SELECT make_timestamptz(2014, 12, 10, 10, 10, 10, 'nosuchzone');
-- jsonb input: only white space may follow the value.
SELECT '1f2'::jsonb;
SELECT 'true, false'::jsonb;
SELECT 'trues'::jsonb;
SELECT '[1] x'::jsonb;
SELECT ' [1] '::jsonb, E'{"a":1}\n'::jsonb;
-- jsonb - integer on an object fails even when it is empty.
SELECT '{}'::jsonb - 1;
SELECT '{"a":1}'::jsonb - 0;
SELECT '[]'::jsonb - 1, '[1,2]'::jsonb - 1;
-- A regular expression PostgreSQL finds too complex (2201B) is refused,
-- never answered.
SELECT 'x' ~ repeat('x*y*z*', 1000) /* refused: PostgreSQL finds it too complex */;
SELECT 'x' ~ repeat('a*', 3000) /* refused: PostgreSQL finds it too complex */;
SELECT 'x' ~ '(a{255}){255}' /* refused: PostgreSQL finds it too complex */;
SELECT 'x' ~ repeat('x*y*z*', 100), 'x' ~ '(\w+\s*){200}', 'x' ~ repeat('a*', 1000);
-- min_scale and trim_scale (numeric.sql's most frequent refusals).
SELECT min_scale(x), trim_scale(x), scale(trim_scale(x)) FROM (VALUES (NULL::numeric), ('NaN'), ('Infinity'), ('-Infinity'), (0), (0.00), (-0.000), (1), (1.0), (1.1), (1.100), (-1.10), (100), (1e10), (1e-10), (123.4500000), (0.000001000), (-7.3500), (1e100), (9999999999999999999999.99990000)) v(x);
SELECT min_scale(1.000000000000000000000000000000001), trim_scale(1.000000000000000000000000000000001000), trim_scale(12e-20::numeric);
SELECT id, n, min_scale(n), trim_scale(n) FROM wd;
-- timestamptz input at the lower bound: the Julian check reads the year
-- and month only, the instant is checked after the offset.
SELECT '4714-11-23 16:00:00-08 BC'::timestamptz = '4714-11-24 00:00:00+00 BC'::timestamptz, extract(epoch from '4714-11-23 16:00:00-08 BC'::timestamptz);
SELECT '4714-11-23 16:00:00-07 BC'::timestamptz;
SELECT '4714-10-31 23:00:00-15 BC'::timestamptz;
SELECT '4714-11-23 23:00:00 BC'::timestamp;
SELECT '4714-11-24 00:00:00 BC'::timestamp, '4714-11-24 00:00:00+00 BC'::timestamptz = '4714-11-24 00:00:00 BC'::timestamp;
