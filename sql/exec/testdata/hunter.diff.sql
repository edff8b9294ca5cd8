-- Wrong answers the wide random generator (internal/sqldiff/randwide.go)
-- found, compared with PostgreSQL.
-- An explicit cast to char(n)/varchar(n) truncates (only an assignment
-- fails with 22001).
SELECT 'éclair'::char(4), 'banana'::varchar(3), 'ab   '::char(2), repeat('banana'::char(4), 2);
SELECT s::char(2), s::varchar(1) FROM nums;
-- CASE/NULLIF/COALESCE over varchar and text resolve to text.
SELECT NULLIF(v, 'x ') FROM nums;
SELECT CASE WHEN id > 1 THEN v ELSE s END FROM nums;
SELECT CASE WHEN id > 1 THEN v ELSE v::text END FROM nums;
SELECT COALESCE(v, s) FROM nums;
-- An operator with one unknown (NULL) operand takes the other's type.
SELECT dt - NULL, dt + 1 FROM nums;
SELECT ts - NULL FROM wd;
SELECT tz - NULL FROM ev;
SELECT dt + NULL FROM nums;
-- CASE is named after its ELSE when that has a name.
SELECT CASE WHEN id > 1 THEN 1 ELSE i2 END FROM nums;
SELECT CASE WHEN id > 1 THEN 1 ELSE i2::text END FROM nums;
SELECT CASE WHEN id > 1 THEN 1 ELSE 2 END FROM nums;
SELECT NULLIF(c, 'ab'), NULLIF(c, s), NULLIF(s, c), NULLIF(v, v), NULLIF(s, 'x') FROM nums;
SELECT CASE WHEN id > 1 THEN s ELSE v END, CASE WHEN id > 1 THEN v END FROM nums;
SELECT dt - '2024-01-01', '2024-01-01' - dt FROM nums;
SELECT ts - '2024-01-01', ts + '1 day' FROM wd WHERE isfinite(ts);
SELECT '2024-01-01' + dt FROM nums;
SELECT CASE WHEN id > 1 THEN 1 ELSE CASE WHEN id > 2 THEN 3 ELSE i8 END END, CASE WHEN id > 1 THEN 1 ELSE i2::text::int END FROM nums;
-- A cast's name is its argument's only when that is strong.
SELECT timestamp '2024-03-01 00:00'::date, '1'::int::text, CAST(s AS varchar) FROM nums;
SELECT timestamp '2024-03-01 00:00'::date FROM nums EXCEPT SELECT dt FROM nums;
SELECT b, min(b) FROM nums GROUP BY b;
-- bpchar LIKE matches the padded value: 'x'::char(4) LIKE 'x' is false.
SELECT id, c, c LIKE 'a', c LIKE 'a   ', c NOT LIKE '', c LIKE 'a%', c ILIKE 'A   ', c LIKE c FROM nums;
SELECT 'x'::char(4) LIKE 'x', 'x'::char(4) LIKE 'x   ', 'x'::char(4) || '|', 'x'::char(4) ~ 'x $';
