-- min and max among values that compare equal but print differently:
-- PostgreSQL keeps the later of two equal values (float8smaller,
-- numeric_smaller, interval_smaller; character keeps the earlier), so
-- over VALUES (its order known) the answer is that one, and over a
-- table (its order PostgreSQL's plan decides) it is refused. Found by
-- randmix seed 7130 q46 (min(i8 * f8): PostgreSQL 0, sidecar -0) and the
-- lead's workload (min over 1.00, 1.0 answered 1.00).
SELECT min(v), max(v) FROM (VALUES (1.00), (1.0), (2.0), (2.00)) t(v);
SELECT min(v), max(v) FROM (VALUES (interval '1 day'), (interval '24 hours')) t(v);
SELECT min(v), max(v) FROM (VALUES ('0'::float8), ('-0'::float8)) t(v);
SELECT min(v), max(v) FROM (VALUES ('-0'::float8), ('0'::float8), ('-0'::float8)) t(v);
SELECT min(v), max(v) FROM (VALUES ('a'::char(3)), ('a'::char(1))) t(v);
SELECT min(v), max(v) FROM (VALUES (1.5), (0.50), (0.5), (2)) t(v);
SELECT min(y), max(y) FROM w;
SELECT grp, min(y), max(y), min(f), max(f) FROM w GROUP BY grp ORDER BY grp;
SELECT min(x * 0.0) FROM w;
SELECT min(f * 0), max(-f * 0) FROM w WHERE f IS NOT NULL;
SELECT min(CASE WHEN id % 2 = 0 THEN '-0'::float8 ELSE '0'::float8 END) FROM w /* refused: 0 and -0 from a table */;
SELECT max(CASE WHEN id % 3 = 0 THEN 1.00 ELSE 1.0 END) FROM w /* refused: 1.0 and 1.00 from a table */;
SELECT grp, min(CASE WHEN id % 2 = 0 THEN interval '1 day' ELSE interval '24 hours' END) FROM w WHERE grp = 'a' GROUP BY grp /* refused */;
SELECT id, min(CASE WHEN id % 2 = 0 THEN 1.00 ELSE 1.0 END) OVER (ORDER BY id) FROM w ORDER BY id;
SELECT min(y * 1.0), min(y::numeric(5,2)) FROM w;
