-- A number times an interval (mul_d_interval: interval_mul with its
-- arguments swapped, the number read as float8) and time − time
-- (time_mi_time). Before, both were 42883 on sql/exec where PostgreSQL
-- answers.
SELECT i * interval '1 day', interval '1 hour' * i, i::int2 * interval '1 mon 1 day', i::int8 * interval '90 minutes', (i * 0.5) * interval '1 mon', (i / 4.0)::float8 * interval '1 year 3 days' FROM (VALUES (1), (-3), (0), (7), (NULL)) t(i);
SELECT id, (id % 5) * (ts - timestamp '2020-01-01') FROM wd WHERE isfinite(ts);
SELECT 2147483647 * interval '1 day';
SELECT a - b, b - a, a - a FROM (VALUES (time '12:34:56.789', time '01:00:00'), (time '00:00', time '24:00:00'), (NULL, time '01:00')) t(a, b);
SELECT time '23:59:59.999999' - time '00:00:00.000001' - interval '1 hour';
