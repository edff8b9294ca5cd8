-- Interval input that PostgreSQL 14 reads otherwise than 15 (14
-- truncates a fraction of a year to months, rounds a fraction of a
-- microsecond half to even, reads numbers as int32 and reports overflow
-- otherwise): refused when the followed server is 14
-- (types/interval14.go), answered as PostgreSQL from 15. The inputs 14
-- and 15 read alike (fractions of at most six digits of a second up to
-- a month, clock fields) are answered on every major.
SELECT interval '1.7 decades', interval '0.1 months', interval '1.5 us';
SELECT interval '1.5 seconds', interval '0.5 days', interval 'P1.5Y', interval '2.5';
SELECT interval '1234567 seconds';
SELECT interval '200000 millennium';
SELECT interval '2147483647 days 1 day';
SELECT '1.5 weeks'::interval;
SELECT CAST('3.25 hours' AS interval);
SELECT interval '1 day 02:03:04.5', interval '-1 week 2 days', interval '@ 3 hours ago', interval '1-2';
SELECT interval 'P1Y2M3DT4H5M6S', interval '999999 hours', interval '100000 seconds', interval '2 years 3 mons -4 days';
SELECT interval '00:00:01.000001', interval '12:34', interval '1 2:03:04', interval '-00:00:00.5';
SELECT '5 minutes'::interval + ts FROM ev WHERE id < 3;
