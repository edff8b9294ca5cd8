-- gen_random_uuid() is volatile: one new version-4 UUID per row (any
-- such value is PostgreSQL's answer, so the statements ask what every
-- answer has in common).
SELECT count(*), count(DISTINCT u), bool_and(u::text ~ '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$') FROM (SELECT gen_random_uuid() AS u FROM generate_series(1, 500)) s;
SELECT count(DISTINCT gen_random_uuid()) FROM nums;
SELECT id, gen_random_uuid() = gen_random_uuid(), gen_random_uuid() IS NULL, length(gen_random_uuid()::text) FROM nums;
