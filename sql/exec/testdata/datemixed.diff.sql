-- +/- between date/time types that PostgreSQL resolves through an
-- implicit cast (sql/plan/datemixed.go): timestamp - date, date -
-- timestamptz (the date's midnight in the session's zone), date ± time
-- and timestamp ± time (the time is an interval), and the commuted
-- interval + date, int + date, time + date.
SELECT id, ts - d, d - ts, tz - d, d - tz, tz - ts, ts - tz FROM ev WHERE isfinite(ts) AND isfinite(tz) AND isfinite(d);
SELECT id, ts - d FROM ev WHERE NOT isfinite(ts) OR NOT isfinite(d) /* refused: infinite timestamps subtracted (an error before 17, an infinite interval from 17) */;
SELECT id, d + t, t + d, d - t, ts + t, t + ts, ts - t FROM wd;
SELECT id, interval '1 day 2 hours' + d, interval '-3 months' + ts, 7 + d, (-2)::int2 + d FROM wd;
SELECT id, interval '1 hour' + tz FROM ev;
SELECT id FROM wd WHERE isfinite(ts) AND isfinite(d) AND ts - d > interval '12 hours' ORDER BY id;
SELECT max(ts - d), min(d + t) FROM wd WHERE isfinite(ts) AND isfinite(d);
SELECT date 'infinity' - timestamp '2024-01-01' /* refused: infinite timestamps subtracted */;
SELECT timestamp '2024-01-01' - date '-infinity' /* refused: infinite timestamps subtracted */;
SELECT date '2024-01-01' + time '24:00';
SELECT time '10:00' - date '2024-01-01';
SELECT interval '1h' - date '2024-01-01';
SELECT date '5874897-12-31' + time '23:00';
