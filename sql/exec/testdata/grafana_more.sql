-- Grafana-style statements that sql/exec refuses today (0A000; the
-- test wants them refused or identical, never different) and ones that
-- read the statement clock (answers that do not depend on the instant).
SELECT to_char(interval '1 day 02:03:04', 'HH24:MI:SS'), to_char(interval '36 hours', 'DD HH24');
SELECT to_date('2024-03-31', 'YYYY-MM-DD'), to_date('31 Mar 2024', 'DD Mon YYYY'), to_date('20240229', 'YYYYMMDD');
SELECT to_timestamp('2024-03-31 01:30:00', 'YYYY-MM-DD HH24:MI:SS'), to_timestamp('31/03/2024 11:45 PM', 'DD/MM/YYYY HH12:MI PM');
SELECT g AS time FROM generate_series(timestamptz '2024-03-30 00:00+00', timestamptz '2024-04-01 00:00+00', interval '12 hours') g;
SELECT id FROM ev WHERE tz > '2024-03-31 01:00:00+01' AND tz < '2024-10-27 03:00:00 CET' ORDER BY 1;
SELECT interval '1.5 months', interval '90 minutes', interval '1 year 2 months 3 days 04:05:06';
SELECT make_interval(days => 3, hours => 4);
SELECT count(*) FROM ev WHERE tz > now() - interval '100 years' AND tz < now() + interval '100 years';
SELECT now() = now(), now() = transaction_timestamp(), current_date = now()::date, current_timestamp = now(), localtimestamp = now()::timestamp;
SELECT id, age(ts) > interval '0', age(tz) > interval '0' FROM ev WHERE id < 5;
SELECT date_trunc('day', now()) <= now(), extract(year FROM now()) >= 2024;
SELECT interval '1 day' * 'Infinity'::float8, make_interval(2147483647);
