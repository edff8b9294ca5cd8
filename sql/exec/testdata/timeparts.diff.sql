-- extract/date_part of time columns and expressions, and make_time
-- (time_part_common, make_time); timetz is not a type of the planner
-- yet (the library's TestTimePartMatchesPostgres covers it).
SELECT id, t, extract(hour FROM t), extract(minute FROM t), extract(second FROM t), extract(milliseconds FROM t), extract(microseconds FROM t), extract(epoch FROM t) FROM wd;
SELECT id, date_part('hour', t), date_part('second', t), date_part('epoch', t), date_part('ms', t) FROM wd;
SELECT date_part('foo', t) FROM wd;
SELECT extract(hour FROM time '24:00'), extract(second FROM time '23:59:59.999999');
SELECT id, make_time(id % 24, id % 60, f) FROM wd WHERE f IS NOT NULL AND f >= 0 AND f < 60;
SELECT make_time(12, 34, 56.789), make_time(24, 0, 0), make_time(0, 0, 59.9999996);
SELECT make_time(23, 60, 0);
SELECT extract(hour FROM make_time(7, 8, 9)) + 1;
