-- date_trunc(text, interval) (sql/builtin/intervaltrunc.go)
SELECT date_trunc('hour', interval '3 days 5 hours 7 minutes');
SELECT date_trunc('month', interval '1 year 5 months 3 days');
SELECT date_trunc(u, interval '2 years 7 months 12 days 13:47:31.123456') FROM (VALUES ('microseconds'), ('milliseconds'), ('second'), ('minute'), ('hour'), ('day'), ('month'), ('quarter'), ('year'), ('decade'), ('century'), ('millennium'), ('Hours'), ('mins'), ('y')) v(u) ORDER BY 1;
SELECT date_trunc(u, interval '-1234 years -7 months -12 days -13:47:31.123456') FROM (VALUES ('microseconds'), ('milliseconds'), ('second'), ('minute'), ('hour'), ('day'), ('month'), ('quarter'), ('year'), ('decade'), ('century'), ('millennium')) v(u) ORDER BY 1;
SELECT date_trunc('quarter', interval '-5 months'), date_trunc('year', interval '-13 months'), date_trunc('hour', interval '-90 minutes');
SELECT date_trunc('week', interval '10 days');
SELECT date_trunc('fortnight', interval '10 days');
SELECT date_trunc('timezone', interval '10 days');
SELECT date_trunc('hour', interval '100000 hours 59 minutes'), date_trunc('day', interval '-3 days 100 hours');
