-- range types on sql/exec against PostgreSQL (issue 23): literals and
-- constructors of the six built-in range types (canonical forms, empty,
-- infinite bounds), output, the operators = <> < > <= >= @> <@ && << >>
-- &< &> -|- + * -, lower/upper/isempty/lower_inc/upper_inc/lower_inf/
-- upper_inf/range_merge, ordering, grouping, DISTINCT and joins over
-- generated ranges; the errors; multiranges refused.
SELECT '[1,5)'::int4range, '(1,5]'::int4range, 'empty'::int4range, '[,]'::int8range, numrange(1.5, 2.50, '[]'), daterange('2020-01-01', '2020-02-01', '(]'), tsrange('2020-01-01 10:00', NULL), tstzrange('2020-01-01', '2020-02-01');
SELECT int4range(1, 5) @> 3, 3 <@ int4range(1, 5), int4range(1, 5) @> int4range(2, 3), int4range(1, 5) && '[4,9)', int4range(1, 5) << int4range(6, 7), int4range(1, 5) -|- '[5,6)', int4range(1, 5) &< int4range(2, 3), int4range(1, 5) &> int4range(2, 3), int4range(1, 5) >> int4range(-3, 0);
SELECT int4range(1, 5) + int4range(3, 9), int4range(1, 5) * int4range(3, 9), int4range(1, 9) - int4range(3, 12), range_merge(int4range(1, 2), int4range(5, 6));
SELECT lower(int4range(1, 5)), upper(numrange(1.5, 2)), isempty(int4range(1, 1)), lower_inc('[1,2]'::numrange), upper_inc('[1,2]'::numrange), lower_inf('(,2020-01-02]'::daterange), upper_inf(tstzrange('2020-01-01', NULL));
WITH g AS (SELECT i, int4range(i % 7 - 3, i % 11) AS a, int4range(i % 5, i % 5 + i % 4, '[]') AS b FROM generate_series(1, 800) i WHERE i % 7 - 3 <= i % 11) SELECT i, a, b, a = b, a <> b, a < b, a <= b, a > b, a >= b, a @> b, a <@ b, a && b, a << b, a >> b, a &< b, a &> b, a -|- b, a * b, range_merge(a, b), a @> (i % 9 - 2), (i % 6) <@ b, lower(a), upper(b), isempty(a), lower_inc(b), upper_inc(b), lower_inf(a), upper_inf(a), a::text, b::text::int4range FROM g;
WITH g AS (SELECT i, int4range(i % 7 - 3, i % 11) AS a, int4range(i % 5, i % 5 + i % 4, '[]') AS b FROM generate_series(1, 800) i WHERE i % 7 - 3 <= i % 11 AND (int4range(i % 7 - 3, i % 11) && int4range(i % 5, i % 5 + i % 4, '[]') OR int4range(i % 7 - 3, i % 11) -|- int4range(i % 5, i % 5 + i % 4, '[]'))) SELECT i, a + b FROM g;
WITH g AS (SELECT i, int8range(i % 13 - 6, i % 13 + i % 3) AS a, int8range(NULLIF(i % 4, 0), i % 9 + 3, '(]') AS b FROM generate_series(1, 600) i) SELECT i, a, b, a = b, a < b, a @> b, a <@ b, a && b, a << b, a >> b, a &< b, a &> b, a -|- b, a * b, range_merge(a, b), a @> (i % 9 - 2)::int8, lower(a), upper(b), upper_inf(b), lower_inf(b) FROM g;
WITH g AS (SELECT i, numrange((i % 17)::numeric / 4, (i % 17 + i % 5)::numeric / 3, (ARRAY['[]', '[)', '(]', '()'])[1 + i % 4]) AS a, numrange(NULLIF(i % 6, 0) * 0.5, NULLIF(i % 7, 0) * 1.25) AS b FROM generate_series(1, 600) i WHERE (i % 17)::numeric / 4 <= (i % 17 + i % 5)::numeric / 3 AND (i % 6 = 0 OR i % 7 = 0 OR i % 6 * 0.5 <= i % 7 * 1.25)) SELECT i, a, b, a = b, a < b, a >= b, a @> b, a <@ b, a && b, a << b, a >> b, a &< b, a &> b, a -|- b, a * b, range_merge(a, b), a @> ((i % 10)::numeric / 2), lower(a), upper(a), lower_inc(a), upper_inc(a), isempty(a) FROM g;
WITH g AS (SELECT i, daterange(date '2020-01-01' + i % 40, date '2020-01-01' + i % 40 + i % 9, (ARRAY['[]', '[)', '(]', '()'])[1 + i % 4]) AS a, daterange(date '2020-01-15' + i % 11, CASE WHEN i % 5 = 0 THEN NULL ELSE date '2020-01-20' + i % 13 END) AS b FROM generate_series(1, 600) i) SELECT i, a, b, a = b, a < b, a @> b, a <@ b, a && b, a << b, a >> b, a &< b, a &> b, a -|- b, a * b, range_merge(a, b), a @> (date '2020-01-10' + i % 30), lower(a), upper(b), upper_inf(b) FROM g;
WITH g AS (SELECT i, tsrange(timestamp '2020-01-01' + i * interval '37 minutes', timestamp '2020-01-01' + i * interval '41 minutes' + interval '1 hour', (ARRAY['[]', '[)', '(]', '()'])[1 + i % 4]) AS a, tsrange(timestamp '2020-01-01 12:00' + (i % 50) * interval '1 hour', NULL) AS b FROM generate_series(1, 500) i) SELECT i, a, b, a = b, a < b, a @> b, a <@ b, a && b, a << b, a >> b, a &< b, a &> b, a -|- b, a * b, range_merge(a, b), a @> (timestamp '2020-01-02' + i * interval '13 minutes'), lower(a), upper(a) FROM g;
WITH g AS (SELECT i, tstzrange(timestamptz '2020-01-01 00:00+00' + i * interval '37 minutes', timestamptz '2020-01-01 00:00+00' + i * interval '41 minutes' + interval '1 hour', (ARRAY['[]', '[)', '(]', '()'])[1 + i % 4]) AS a, tstzrange(NULL, timestamptz '2020-01-05 12:00+00' + (i % 50) * interval '1 hour') AS b FROM generate_series(1, 500) i) SELECT i, a, b, a = b, a < b, a @> b, a <@ b, a && b, a << b, a >> b, a &< b, a &> b, a -|- b, a * b, range_merge(a, b), a @> (timestamptz '2020-01-02 00:00+00' + i * interval '13 minutes'), lower(a), upper(a), lower_inf(b) FROM g;
WITH g AS (SELECT i, int4range(i % 5, i % 5 + i % 3) AS r FROM generate_series(1, 300) i) SELECT r, count(*), min(i), max(i) FROM g GROUP BY r;
WITH g AS (SELECT i, int4range(i % 5, i % 5 + i % 3) AS r FROM generate_series(1, 300) i) SELECT string_agg(r::text, ',' ORDER BY r, i), count(DISTINCT r) FROM g;
WITH g AS (SELECT i, numrange((i % 7)::numeric / 2, (i % 7 + i % 4)::numeric / 2, (ARRAY['[]', '[)'])[1 + i % 2]) AS r FROM generate_series(1, 300) i) SELECT DISTINCT r FROM g;
WITH g AS (SELECT i, daterange(date '2020-01-01' + i % 9, date '2020-01-05' + i % 7, '[]') AS r FROM generate_series(1, 200) i WHERE i % 9 <= 4 + i % 7) SELECT a.i, b.i FROM g a JOIN g b ON a.r = b.r WHERE a.i < b.i AND a.i % 10 = 0;
WITH g AS (SELECT i, tstzrange(timestamptz '2020-01-01 00:00+00' + (i % 20) * interval '1 day', timestamptz '2020-01-01 00:00+00' + (i % 20 + i % 3) * interval '1 day') AS r FROM generate_series(1, 200) i) SELECT r, count(*) FROM g WHERE r && tstzrange('2020-01-05', '2020-01-12') GROUP BY r;
WITH g AS (SELECT i, tsrange(timestamp '2020-01-01' + (i % 10) * interval '1 day', timestamp '2020-01-03' + (i % 10) * interval '1 day') AS r FROM generate_series(1, 100) i) SELECT r, lower(r), upper(r) - lower(r), row_number() OVER (ORDER BY r DESC, i) FROM g;
SELECT '[1,5]'::int4range, '(1,5)'::int4range, '(1,2)'::int4range, '[3,3]'::int4range, '(3,3]'::int4range, '[ 1 , 5 ]'::int4range, '["1","5"]'::int4range, '[,5]'::int4range, '(,)'::numrange, '[1.5,1.5]'::numrange, '[NaN,NaN]'::numrange, '[-Infinity,Infinity]'::numrange, '(2020-01-01,2020-01-03]'::daterange, '[-infinity,infinity]'::daterange, '[2020-01-01,infinity]'::daterange, '["2020-01-01 10:00","2020-01-01 11:00"]'::tsrange, '[infinity,infinity]'::tsrange, 'EMPTY'::tstzrange, '  empty  '::daterange;
SELECT int4range(NULL, NULL), int4range(NULL, 5, '[]'), int8range(5, NULL, '()'), numrange(NULL, 1), daterange(NULL, NULL, '[]'), tsrange('2020-01-01', '2020-01-01', '[]'), tstzrange('2020-01-01', '2020-01-01');
SELECT int4range(1, 5) = '[1,4]', '[1,4]' = int4range(1, 5), int4range(1, 5) < 'empty', 'empty'::int4range < int4range(1, 5), int4range(NULL, 2) < int4range(1, 2), int4range(1, NULL) > int4range(1, 9), numrange(1, 2) = numrange(1.0, 2.00), 'empty'::numrange = numrange(1, 1);
SELECT int4range(1, 5) @> 'empty'::int4range, 'empty'::int4range <@ int4range(1, 5), 'empty'::int4range @> 'empty'::int4range, 'empty'::int4range && int4range(1, 2), 'empty'::int4range << int4range(1, 2), 'empty'::int4range -|- int4range(1, 2), int4range(1, 5) + 'empty', 'empty' + int4range(1, 5), int4range(1, 5) - 'empty', 'empty' - int4range(1, 5), int4range(1, 5) * 'empty', range_merge('empty'::int4range, 'empty');
SELECT numrange(1, 2) -|- numrange(2, 3), numrange(1, 2, '[]') -|- numrange(2, 3), numrange(1, 2) -|- numrange(2, 3, '()'), int4range(1, 2, '[]') -|- int4range(3, 4), daterange('2020-01-01', '2020-01-02', '[]') -|- daterange('2020-01-03', '2020-01-04'), tsrange('2020-01-01', '2020-01-02') -|- tsrange('2020-01-02', '2020-01-03');
SELECT lower('[1,2)'), upper('abc'), lower(NULL::int4range), upper('empty'::int4range), lower('(,3)'::int4range), upper('[1,)'::numrange);
SELECT isempty('empty');
SELECT int4range(1, 5) + int4range(7, 9);
SELECT int4range(1, 9) - int4range(3, 5);
SELECT int4range(5, 1);
SELECT numrange(2, 1.5);
SELECT int4range(1, 5, 'x');
SELECT int4range(1, 5, '[]]');
SELECT int4range(1, 5, NULL);
SELECT int8range(1, 5) @> 3;
SELECT int4range(1, 5) @> 3.0;
SELECT int4range(1, 5) = int8range(1, 5);
SELECT int4range(1, 5) @> '3';
SELECT '3' <@ int4range(1, 5);
SELECT daterange('2020-01-01', '2020-02-01') @> now();
SELECT int4range(1.5, 5);
SELECT '[1,2'::int4range;
SELECT '(1,2]x'::int4range;
SELECT '1,2'::int4range;
SELECT '[1,2,3]'::int4range;
SELECT 'emptyx'::int4range;
SELECT '[a,2)'::int4range;
SELECT '[2147483647,2147483647]'::int4range;
SELECT '(2147483646,2147483647]'::int4range;
SELECT '[9223372036854775807,9223372036854775807]'::int8range;
SELECT '[5874897-12-31,5874897-12-31]'::daterange;
SELECT '[3,1)'::int4range;
SELECT '(2020-01-02,2020-01-01)'::daterange;
SELECT int4range(1, 5) || int4range(5, 6);
SELECT /* refused: multiranges are not kept */ '{[1,2), [5,6)}'::int4multirange;
SELECT /* refused: multiranges are not kept */ range_agg(r) FROM (VALUES (int4range(1, 2)), (int4range(5, 6))) v(r);
SELECT /* refused: multiranges are not kept */ int4multirange(int4range(1, 2));
