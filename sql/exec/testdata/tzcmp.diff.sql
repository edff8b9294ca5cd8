-- date and timestamp compared with timestamptz (datecmp.go
-- toTimestamptzComparer): the date's midnight or the timestamp read in
-- the session's zone (UTC here; other zones in sqlfront's
-- TestTimestamptzComparisons); infinities; values past timestamptz's
-- range are later than every finite timestamptz, earlier than infinity.
SELECT a.id, b.id, a.d < b.tz, a.d <= b.tz, a.d = b.tz, a.d > b.tz, b.tz >= a.d, a.ts < b.tz, a.ts = b.tz, b.tz > a.ts, a.ts IS DISTINCT FROM b.tz FROM ev a, ev b;
SELECT id FROM ev WHERE tz >= date '2024-03-31' AND tz < date '2024-03-31' + 1 ORDER BY id;
SELECT id FROM ev WHERE tz > date '2024-03-10' ORDER BY id;
SELECT id FROM ev WHERE tz < timestamp '2024-03-31 01:30:00' ORDER BY id;
SELECT id FROM ev WHERE tz = timestamp '2024-03-31 01:30:00';
SELECT id FROM ev WHERE tz BETWEEN date '2024-01-01' AND timestamp '2024-06-30 23:00' ORDER BY id;
SELECT id FROM ev WHERE d IN (timestamptz '2024-03-31 00:00+00', timestamptz '2024-01-01 00:00:01+00') ORDER BY id;
SELECT date '5874897-12-31' > timestamptz '2000-01-01', date '5874897-12-31' < timestamptz 'infinity', timestamp '294276-12-31 23:00' < timestamptz 'infinity', date '-infinity' = timestamptz '-infinity', date 'infinity' > timestamptz '2000-01-01';
SELECT timestamptz '2024-01-01 00:00+00' > date '2023-12-31', timestamptz 'infinity' = timestamp 'infinity', timestamptz '-infinity' < date '4713-01-01 BC';
SELECT a.id, b.id FROM ev a JOIN ev b ON a.d = b.tz ORDER BY 1, 2;
SELECT a.id FROM ev a WHERE a.tz IN (SELECT d FROM ev) ORDER BY 1;
SELECT count(*) FILTER (WHERE tz >= d), count(*) FILTER (WHERE ts < tz), count(*) FILTER (WHERE tz <> ts) FROM ev;
