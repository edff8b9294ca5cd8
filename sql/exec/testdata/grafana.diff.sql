-- Grafana-style time series over ev (timestamp, timestamptz, date;
-- DST changes of Berlin and New York, NULLs, infinities) compared row
-- by row with PostgreSQL: the macros' expansions ($__timeFilter,
-- $__timeGroup, $__unixEpochFilter), date_trunc/extract/to_char,
-- generate_series over timestamps, interval arithmetic.
SELECT date_trunc('hour', tz) AS time, avg(v) AS value FROM ev WHERE tz BETWEEN '2024-03-01T00:00:00Z'::timestamptz AND '2024-11-30T23:59:59Z' GROUP BY 1 ORDER BY 1;
SELECT date_trunc('day', tz) AS time, count(*), sum(v) FROM ev WHERE tz >= '2024-01-01T00:00:00Z' AND tz <= '2024-12-31T23:59:59Z' GROUP BY 1 ORDER BY 1;
SELECT date_trunc('month', ts) AS time, host AS metric, count(v) FROM ev GROUP BY 1, 2 ORDER BY 1, 2;
SELECT date_trunc('week', d) AS time, max(v) FROM ev GROUP BY 1 ORDER BY 1;
SELECT date_trunc('day', tz, 'Europe/Berlin') AS time, count(*) FROM ev GROUP BY 1 ORDER BY 1;
SELECT date_trunc('hour', tz, 'America/New_York') AS time, count(*) FROM ev GROUP BY 1 ORDER BY 1;
SELECT id, date_trunc('quarter', tz), date_trunc('year', ts), date_trunc('minute', tz), date_trunc('second', tz), date_trunc('milliseconds', tz), date_trunc('decade', d), date_trunc('century', ts), date_trunc('millennium', tz) FROM ev;
SELECT floor(extract(epoch FROM tz) / 3600) * 3600 AS time, avg(v) FROM ev WHERE tz IS NOT NULL AND tz < 'infinity' GROUP BY 1 ORDER BY 1;
SELECT to_timestamp(floor(extract(epoch FROM tz) / 300) * 300) AS time, count(*) FROM ev WHERE id <> 16 GROUP BY 1 ORDER BY 1;
SELECT extract(epoch FROM tz) AS time, v FROM ev WHERE extract(epoch FROM tz) BETWEEN 1711843200 AND 1730592000 ORDER BY 1;
SELECT id, extract(century FROM tz), extract(day FROM tz), extract(decade FROM tz), extract(dow FROM tz), extract(doy FROM tz), extract(hour FROM tz), extract(isodow FROM tz), extract(isoyear FROM tz), extract(julian FROM tz) FROM ev;
SELECT id, extract(microseconds FROM tz), extract(millennium FROM tz), extract(milliseconds FROM tz), extract(minute FROM tz), extract(month FROM tz), extract(quarter FROM tz), extract(second FROM tz), extract(timezone FROM tz), extract(timezone_hour FROM tz), extract(timezone_minute FROM tz), extract(week FROM tz), extract(year FROM tz) FROM ev;
SELECT id, extract(century FROM ts), extract(dow FROM ts), extract(doy FROM ts), extract(epoch FROM ts), extract(julian FROM ts), extract(microseconds FROM ts), extract(week FROM ts), extract(isoyear FROM ts) FROM ev;
SELECT id, extract(day FROM d), extract(dow FROM d), extract(epoch FROM d), extract(week FROM d), extract(year FROM d), extract(julian FROM d) FROM ev;
SELECT id, date_part('hour', tz), date_part('epoch', tz), date_part('dow', ts), date_part('doy', d) FROM ev;
SELECT extract(year FROM interval '1 year 2 months 3 days 04:05:06.789'), extract(month FROM interval '14 months'), extract(epoch FROM interval '1 day 2 hours'), extract(hour FROM interval '-25 hours'), extract(second FROM interval '1.5 seconds'), extract(day FROM interval '40 days');
SELECT id, to_char(tz, 'YYYY-MM-DD HH24:MI:SS'), to_char(ts, 'Dy DD Mon YYYY HH12:MI AM'), to_char(d, 'IYYY-IW ID'), to_char(tz, 'YYYY"Q"Q WW J'), to_char(ts, 'FMMonth FMDD, YYYY'), to_char(tz, 'HH24:MI:SS.MS US') FROM ev;
SELECT to_timestamp(1711848600), to_timestamp(1711848600.25), to_timestamp(-1.5), to_timestamp(0);
SELECT make_date(2024, 2, 29), make_timestamp(2024, 3, 31, 1, 30, 15.5), make_timestamptz(2024, 3, 31, 1, 30, 0), make_timestamptz(2024, 3, 31, 1, 30, 0, 'Europe/Berlin'), make_interval(1, 2, 3, 4, 5, 6, 7.5), make_interval(0, 0, 0, 3, 4), make_interval(), make_interval(0, -13);
SELECT justify_days(interval '35 days'), justify_hours(interval '50 hours'), justify_interval(interval '1 month -1 hour'), justify_interval(interval '-35 days 50 hours');
SELECT id, tz + interval '1 day', tz - interval '1 month', ts + interval '1 hour 30 minutes', d + 1, d - 1, d + interval '1 day', ts - interval '1 year' FROM ev;
SELECT id, ts - timestamp '2024-01-01', tz - timestamptz '2024-01-01 00:00+00', d - date '2024-01-01' FROM ev WHERE id <> 16;
SELECT interval '1 day' * 2, interval '1 hour' / 4, interval '1 month' + interval '1 day', -interval '1 day 02:00', interval '2 days 3 hours' - interval '1 hour';
SELECT interval '1 day' * 1.5, interval '1 month' * 0.3, interval '1 month 3 days' / 7, interval '-1 day 02:00' * -2.5, interval '1 hour' / 0.1;
SELECT interval '1 day' / 0;
SELECT id, tz AT TIME ZONE 'UTC', tz AT TIME ZONE 'America/New_York', tz AT TIME ZONE 'Europe/Berlin', ts AT TIME ZONE 'Asia/Kolkata', ts AT TIME ZONE 'Australia/Lord_Howe' FROM ev;
SELECT g AS time FROM generate_series(timestamp '2024-03-30 00:00', timestamp '2024-04-01 00:00', interval '6 hours') g;
SELECT g AS time, count(ev.id) FROM generate_series(timestamp '2024-03-31 00:00', timestamp '2024-03-31 03:00', interval '1 hour') g LEFT JOIN ev ON date_trunc('hour', ev.ts) = g GROUP BY 1 ORDER BY 1;
SELECT date_trunc('hour', ts) AS time, host, v, lag(v) OVER (PARTITION BY host ORDER BY ts) FROM ev WHERE ts BETWEEN '2024-01-01' AND '2024-12-31' ORDER BY 1, 2;
SELECT ts::date, tz::date, d::timestamp, d::timestamptz, ts::timestamptz, tz::timestamp, tz::time, ts::time FROM ev;
SELECT id, tz::text, ts::text, d::text FROM ev;
SELECT id FROM ev WHERE ts >= date '2024-03-31' AND d < '2024-10-28' ORDER BY id;
SELECT date_bin(interval '15 minutes', tz, timestamptz '2000-01-01 00:00+00') AS time, count(*) FROM ev WHERE id <> 16 GROUP BY 1 ORDER BY 1;
SELECT id, isfinite(tz), isfinite(d), isfinite(ts) FROM ev;
SELECT min(tz), max(tz), min(d), max(ts) FROM ev;
SELECT id, (tz, tz + interval '1 hour') OVERLAPS (timestamptz '2024-03-31 01:00+00', interval '1 hour') FROM ev WHERE id < 4;
SELECT timestamp '2024-03-31 02:30' AT TIME ZONE 'Europe/Berlin', timestamp '2024-10-27 02:30' AT TIME ZONE 'Europe/Berlin', timestamp '2024-03-10 02:30' AT TIME ZONE 'America/New_York', timestamp '2024-11-03 01:30' AT TIME ZONE 'America/New_York';
SELECT age(timestamp '2024-03-31 01:30', timestamp '2023-01-15 12:00'), age(date '2024-02-29', date '2023-02-28'), age(timestamptz '2024-03-31 01:30+00', timestamptz '2024-03-01 02:00+00');
SELECT id, age(ts, timestamp '2024-01-01'), age(timestamp '2024-01-31', ts), age(tz, timestamptz '2023-03-31 12:00+00'), justify_interval(ts - timestamp '2023-02-28 23:00') FROM ev WHERE id <> 16;
SELECT interval '1 year 2 months 3 days 04:05:06.789' * 2.75, interval '-1 mon 2 days -03:00' * 0.333, interval '35 days' / 3, interval '1 mon' / 3, interval '2 hours' * -1, interval '1 day' * 1e9;
SELECT interval '7 days' * 1e10;
SELECT interval '1 day' * 'NaN'::float8;
SELECT date_bin(interval '1 day 2 hours', timestamp '1999-12-25 01:00', timestamp '2000-01-01'), date_bin(interval '7 minutes', timestamp '2024-03-31 01:30:59', timestamp '2024-03-31'), date_bin(interval '15 minutes', timestamptz 'infinity', timestamptz '2000-01-01 00:00+00');
SELECT date_bin(interval '1 month', timestamp '2024-01-01', timestamp '2000-01-01');
SELECT date_bin(interval '0 minutes', timestamp '2024-01-01', timestamp '2000-01-01');
SELECT date_bin(interval '-5 minutes', timestamp '2024-01-01', timestamp '2000-01-01');
SELECT age(timestamp '0044-03-15 12:00 BC', timestamp '2024-02-29'), age(timestamp '2024-03-01', timestamp '2024-01-31'), age(timestamp '2023-03-01', timestamp '2024-02-29 23:59:59.5'), age(date '2000-02-29', date '2001-03-01');
SELECT justify_hours(interval '-50 hours'), justify_hours(interval '1 day -25 hours'), justify_days(interval '-65 days'), justify_days(interval '1 mon -40 days'), justify_interval(interval '-1 mon 40 days -50 hours'), justify_interval(interval '29 days 24 hours');
SELECT (timestamp '2024-01-01', NULL::timestamp) OVERLAPS (timestamp '2023-12-31', timestamp '2024-01-02'), (NULL::timestamp, timestamp '2024-01-01') OVERLAPS (timestamp '2024-01-01', interval '1 day'), (timestamp '2024-01-02', timestamp '2024-01-01') OVERLAPS (timestamp '2024-01-01 12:00', NULL::timestamp), (date '2024-01-01', date '2024-01-05') OVERLAPS (date '2024-01-05', date '2024-01-06');
SELECT id, (tz, interval '1 month') OVERLAPS (timestamptz '2024-04-01 00:00+00', interval '1 day'), ts - interval '1 mon' * 1.5 FROM ev WHERE id <> 16;
SELECT make_interval(178956970), make_interval(0, 0, 0, 0, 0, 0, 1e-7), make_interval(0, 0, 0, 0, 0, 0, -0.5);
-- generate_series over timestamptz: steps added in the session's zone
-- (a day across a daylight-saving change keeps the hour of day).
SELECT g AS time FROM generate_series(timestamptz '2024-03-30 00:00+00', timestamptz '2024-04-01 00:00+00', interval '12 hours') g;
SELECT g FROM generate_series(timestamptz '2024-03-29 22:00+00', timestamptz '2024-04-01 02:00+00', interval '1 day') g;
SELECT g FROM generate_series('2024-10-26 00:00+00', '2024-10-28 00:00+00', interval '1 day 1 hour') g;
SELECT g FROM generate_series(date '2024-03-30', date '2024-04-02', interval '1 day') g;
SELECT g AS time, count(ev.id) FROM generate_series(timestamptz '2024-03-31 00:00+00', timestamptz '2024-03-31 03:00+00', '1 hour') g LEFT JOIN ev ON date_trunc('hour', ev.tz) = g GROUP BY 1 ORDER BY 1;
SELECT count(*), min(g), max(g) FROM generate_series(timestamptz '2024-01-31 00:00+00', timestamptz '2024-12-31 00:00+00', interval '1 month') g;
SELECT g FROM generate_series(timestamptz '2024-03-02 00:00+00', timestamptz '2024-01-01 00:00+00', interval '-1 month -1 day') g;
SELECT g, n FROM generate_series(timestamptz '2024-03-31 00:00+00', timestamptz '2024-03-31 04:00+00', interval '90 minutes') WITH ORDINALITY AS s(g, n);
-- to_date and to_timestamp(text, text) of input spelling the format (local time of the session's zone, gaps and overlaps included).
SELECT to_date('2024-03-31', 'YYYY-MM-DD'), to_date('20240229', 'YYYYMMDD'), to_timestamp('2024-03-31 01:30:00', 'YYYY-MM-DD HH24:MI:SS');
SELECT to_timestamp('2024-03-31 02:30:00', 'YYYY-MM-DD HH24:MI:SS'), to_timestamp('2024-10-27 02:30:00', 'YYYY-MM-DD HH24:MI:SS'), to_timestamp('20241103013000', 'YYYYMMDDHH24MISS');
SELECT id, to_char(ts, 'YYYY-MM-DD') = to_date(to_char(ts, 'YYYY-MM-DD'), 'YYYY-MM-DD')::text FROM ev ORDER BY 1;
