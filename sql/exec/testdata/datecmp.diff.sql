-- date compared with timestamp (datecmp.go: the date's day against the
-- timestamp's day and time, no conversion per row): midnights, times
-- into the day, infinities, dates before 2000, a date past the last
-- timestamp (PostgreSQL answers: later than every finite timestamp).
SELECT a.id, b.id, a.d < b.ts, a.d <= b.ts, a.d = b.ts, a.d <> b.ts, a.d > b.ts, a.d >= b.ts, b.ts < a.d, b.ts = a.d, b.ts >= a.d FROM wd a, wd b;
SELECT a.id, b.id, a.d < b.ts, a.d = b.ts, b.ts > a.d, a.d IS DISTINCT FROM b.ts FROM ev a, ev b;
SELECT id FROM ev WHERE d >= timestamp '2024-03-31 00:00:00';
SELECT id FROM ev WHERE d > timestamp '2024-03-31 00:00:00';
SELECT id FROM ev WHERE d < timestamp '2024-03-31 00:00:01';
SELECT id FROM ev WHERE d = timestamp '2024-03-31';
SELECT id FROM ev WHERE timestamp '2024-03-30 23:59:59.999999' < d AND d <= date '2024-03-31' + interval '1 day';
SELECT id FROM ev WHERE d >= date '2024-01-01' AND d < date '2024-01-01' + interval '1' month;
SELECT id FROM wd WHERE d > timestamp '1999-12-31 23:59:59' ORDER BY id;
SELECT id FROM wd WHERE d < timestamp '-infinity' OR d > timestamp 'infinity' OR d = timestamp 'infinity' OR d = timestamp '-infinity';
SELECT id FROM wd WHERE d <= timestamp '1899-06-01 12:00' OR d >= timestamp '294276-12-31 23:59:59';
SELECT date '5874897-12-31' > timestamp '2000-01-01', date '5874897-12-31' < timestamp 'infinity', date '5874897-12-31' = timestamp 'infinity', timestamp '294276-12-31' < date '294277-01-01';
SELECT id FROM wd WHERE d BETWEEN timestamp '2024-01-01 00:00:01' AND timestamp '2024-02-01';
SELECT id FROM wd WHERE d IN (timestamp '2024-01-01', timestamp '2024-01-03 00:00:01');
SELECT d, count(*) FROM wd WHERE d <> timestamp '2024-01-03' GROUP BY d;
