-- num_nulls, num_nonnulls (sql/builtin/numnulls.go); width_bucket over an array is refused, not 42883
SELECT num_nulls(1, NULL, 2), num_nonnulls(1, NULL, 2);
SELECT num_nulls(NULL::int), num_nonnulls(NULL), num_nulls('a', NULL::text, 1.5, NULL::date);
SELECT id, num_nulls(i2, f, c), num_nonnulls(i2, f, c, d) FROM nums ORDER BY id;
SELECT num_nulls();
SELECT num_nulls(VARIADIC ARRAY[1, NULL]) /* refused: VARIADIC */;
SELECT width_bucket(5, array[1, 3, 4, 10]) /* refused: width_bucket over thresholds */;
