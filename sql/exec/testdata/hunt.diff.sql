-- Wrong answers the random generators of internal/sqldiff (randmix_test.go,
-- randquery_test.go, randwide_test.go) found, minimized.
--
-- An immutable expression of constants in the select list is evaluated
-- while PostgreSQL plans, so its error fails the statement even when no
-- row is read (WHERE false, an empty table): randmix seed 1 query 43.
SELECT 1 / 0 FROM nums WHERE false;
SELECT 1 / 0 FROM nums WHERE 1 > 2;
SELECT n, 1 / 0 FROM t1 WHERE n < 0;
SELECT 32767::int2 + 1::int2 FROM nums WHERE false;
--
-- Minus applied to a typed literal that has a sign already negates it
-- (randmix seed 2 query 158: "--Infinity" was read as the literal, 22P02).
SELECT - '-Infinity'::float8, - '+Infinity'::float8, - '-1.5'::numeric, - ' -7 '::int4, - '+3'::int8 FROM nums WHERE id = 1;
SELECT id FROM nums WHERE f < - '-Infinity'::float8 ORDER BY id;
SELECT - '-2147483648'::int4 FROM nums WHERE id = 1;
--
-- A strict operator with a NULL constant argument, and AND with a false
-- one, are folded only after PostgreSQL folded the arguments before:
-- their errors are raised (randmix seed 12 query 239: 37 rows where
-- PostgreSQL fails 22008; that statement, refused on sql/exec, is a
-- fixed case of randmix_test.go).
SELECT id, NULL::int4 + (2147483647 + 1) FROM nums;
SELECT id FROM nums WHERE (1 / 0 = 1) AND false;
SELECT id FROM nums WHERE false AND (1 / 0 = 1);
SELECT id, NULL::int4 + (i8::int4 * 1) FROM nums ORDER BY id;
SELECT id FROM nums WHERE (i2 * i2 * i2 * i2) <> NULL;
--
-- A constant expression is folded whole: COALESCE stops at its first
-- non-NULL constant and CASE at its first true condition, so an
-- argument after them is not evaluated (randexpr seed 61 queries 219
-- and 278: "bigint out of range", "date out of range" where PostgreSQL
-- answers).
SELECT COALESCE(0::int8 & 5::int8, 1e20::int8) * (-3)::int8 FROM nums WHERE id = 1;
SELECT COALESCE(make_date(100, 1, 31), date '2024-02-29' - (-2147483648)) FROM nums WHERE id = 1;
SELECT CASE WHEN 1 = 1 THEN 1 ELSE 1 / 0 END, CASE WHEN 1 = 2 THEN 1 / 0 END FROM nums WHERE id = 1;
SELECT id, COALESCE(i2, 1e20::int8) FROM nums ORDER BY id;
--
-- timestamp ± an interval of days past the range fails 22008 (the days
-- times microseconds wrapped and landed in range: randexpr seed 62
-- query 364 answered where PostgreSQL fails).
SELECT ts + interval '2147483647 days' FROM wd WHERE ts IS NOT NULL AND ts < timestamp 'infinity' AND ts > timestamp '-infinity';
SELECT timestamp '2024-02-29 12:34:56' + interval '2147483647 days' FROM nums WHERE id = 1;
SELECT timestamp '2024-02-29 12:34:56' - interval '2147483647 days' FROM nums WHERE id = 1;
SELECT timestamptz '2024-02-29 12:34:56+00' + interval '2147483647 days' FROM nums WHERE id = 1;
SELECT timestamp '2024-02-29 12:34:56' + interval '100000 days', timestamp '2024-02-29' + interval '-700000 days' FROM nums WHERE id = 1;
--
-- A strict operator whose operand folds to NULL (not only a NULL
-- literal) is NULL without its other operand evaluated: the cast of
-- 1e300 to int2 never runs (issue 21, session 17: the flat path failed
-- 22003).
SELECT id FROM nums WHERE f::int2 < (NULL::int + 1);
SELECT id, f::int2 + abs(NULL::int2), (f::int2 < (NULL::int + 1)) IS NULL FROM nums;
