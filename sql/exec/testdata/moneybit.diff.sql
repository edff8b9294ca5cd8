-- money and the bit strings on sql/exec against PostgreSQL (issue 23):
-- generated amounts through output, the casts, + - * / with every
-- number type, comparisons, sum/min/max, ordering, grouping and joins;
-- bit and bit varying through output, & | # ~ << >> ||, length,
-- bit_length, octet_length, bit_count, get_bit, set_bit, substring,
-- position, overlay, the casts to and from integers, comparisons
-- between bit and varbit, ordering, grouping and DISTINCT; the errors.
WITH g AS (SELECT i, ((i * 7919) % 200001 - 100000)::numeric / (1 + i % 7) AS n FROM generate_series(1, 1500) i) SELECT i, n::money, (n::money)::numeric, (n::money)::text, n::money + '1.01', n::money - '$2,000.50', n::money * 3, n::money * 2.5, n::money * 0.333::float4, n::money * (i % 5)::int2, n::money * (i::int8 * 1000), 7 * n::money, 1.5::float8 * n::money, n::money / 3, n::money / (i % 4 + 1)::int8, n::money / 2.5, n::money / '7'::money, i::money, (i * 1000000)::int8::money, n::money < '$0.00', n::money = (n * 1)::money, cash_words(n::money) FROM g;
WITH g AS (SELECT i, ((i * 7919) % 200001 - 100000)::numeric / (1 + i % 7) AS n FROM generate_series(1, 1500) i) SELECT i % 10, sum(n::money), min(n::money), max(n::money), count(DISTINCT n::money) FROM g GROUP BY i % 10;
WITH g AS (SELECT i, ((i * 7919) % 200001 - 100000)::numeric / (1 + i % 7) AS n FROM generate_series(1, 1500) i) SELECT string_agg(n::money::text, ',' ORDER BY n::money, i), sum(n::money), cashlarger(min(n::money), '$5'), cashsmaller(max(n::money), '$5') FROM g;
WITH g AS (SELECT i, (i % 37)::numeric::money AS m FROM generate_series(1, 500) i) SELECT a.i, b.i FROM g a JOIN g b ON a.m = b.m WHERE a.i < b.i AND a.i % 25 = 0;
WITH g AS (SELECT i, (i % 37)::numeric::money AS m FROM generate_series(1, 500) i) SELECT m, count(*), row_number() OVER (ORDER BY m) FROM g GROUP BY m;
SELECT '12.345'::money, '$1,2,3.4'::money, '(5)'::money, '5-'::money, ' $ -3'::money, '-92233720368547758.08'::money, '92233720368547758.07'::money, '1.005'::numeric::money, (-1.005)::numeric::money, 2147483647::money;
SELECT '92233720368547758.07'::money + '0.01';
SELECT '-92233720368547758.08'::money - '0.01';
SELECT '92233720368547758.07'::money * 2;
SELECT '92233720368547758.07'::money * 2.0;
SELECT '1'::money * 1e-300::float8;
SELECT '1'::money / 0;
SELECT '1'::money / 0.0::float8;
SELECT '1'::money / '0'::money;
SELECT '-92233720368547758.08'::money / (-1);
SELECT '-92233720368547758.08'::money / (-1)::int2;
SELECT 92233720368547759::int8::money;
SELECT 1e20::numeric::money;
SELECT 'NaN'::numeric::money;
SELECT 'abc'::money;
SELECT '92233720368547758.08'::money;
SELECT '10'::money + 1;
SELECT '10'::money < 11;
SELECT sum(m) FROM (VALUES ('92233720368547758.07'::money), ('1'::money)) v(m);
SELECT sum(m), min(m), max(m) FROM (VALUES ('1'::money), (NULL::money)) v(m) WHERE false;
-- bit and bit varying.
WITH g AS (SELECT i, ((i * 2654435761) % 4294967296)::int8::bit(32)::varbit AS full32, substring(((i * 40503) % 65536)::int4::bit(16) from 1 + i % 5 for i % 13) AS v FROM generate_series(1, 1200) i) SELECT i, v, length(v), bit_length(v), octet_length(v), bit_count(v), v || B'1', B'0' || v, v || v, position(B'1' in v), position(B'01' in v), position(B'' in v), substring(v from 2), substring(v from 2 for 3), substring(v from -1 for 3), overlay(v placing B'11' from 1 + i % 3), v = full32, v < full32, v::bit(5), v::varbit(4), v << (i % 7), v >> (i % 5), v << -2, ~v FROM g;
WITH g AS (SELECT i, ((i * 2654435761) % 4294967296)::int8::bit(32) AS b, ((i * 40503) % 65536)::int4::bit(32) AS c FROM generate_series(1, 1200) i) SELECT i, b, b & c, b | c, b # c, ~b, b::int4, b::int8, c::int4, (b & c)::int8, get_bit(b, i % 32), set_bit(b, i % 32, i % 2), b::bit(8), b::bit(40), b::varbit(3), i::bit(10), (-i)::bit(40), (i::int8 * 1000000)::bit(64), b = c, b <> c, b >= c FROM g;
WITH g AS (SELECT i, substring(((i * 40503) % 65536)::int4::bit(16) from 1 + i % 5 for i % 9) AS v FROM generate_series(1, 1200) i) SELECT v, count(*), min(i), max(i) FROM g GROUP BY v;
WITH g AS (SELECT i, substring(((i * 40503) % 65536)::int4::bit(16) from 1 + i % 5 for i % 9) AS v FROM generate_series(1, 1200) i) SELECT string_agg(v::text, ',' ORDER BY v, i), count(DISTINCT v) FROM g;
WITH g AS (SELECT i, substring(((i * 40503) % 65536)::int4::bit(16) from 1 + i % 5 for i % 9) AS v FROM generate_series(1, 300) i) SELECT a.i, b.i FROM g a JOIN g b ON a.v = b.v WHERE a.i < b.i AND a.i % 20 = 0;
SELECT B'101', X'1F', B'101'::varbit, B'101' & '110', B'101' | B'011', B'101' # B'110', ~B'101', B'1010' << 1, B'1010' >> 1, B'101' || '1', B'101'::bit(3) = B'101'::varbit, B'10'::varbit < B'1'::bit, get_bit(B'1010', 0), set_bit(B'1010', 0, 0), substring(B'110010' from 2 for 3), position(B'01' in B'1101'), overlay(B'1111' placing B'00' from 2), overlay(B'1111' placing B'00' from 2 for 1), bit_length(B'101'), octet_length(B'101010101'), length(B'101'), bit_count(B'1011'::varbit), 5::bit(8), 300::bit(4), B'1111'::int, (-1)::bit(3), B'101'::bit(5), B'10101'::bit(3), B'101'::varbit(2), 'x1f'::bit(8);
SELECT B'101' & B'11';
SELECT B'101' | B'11';
SELECT B'101' # B'11';
SELECT get_bit(B'101', 5);
SELECT set_bit(B'101', 1, 2);
SELECT set_bit(B'101', 3, 2);
SELECT substring(B'10101' from 2 for -1);
SELECT overlay(B'1111' placing B'00' from 0);
SELECT B'111111111111111111111111111111111'::int4;
SELECT '102'::bit(3);
SELECT '101'::bit(2)::varbit;
SELECT 'x1g'::varbit;
SELECT bit_and(b), bit_or(b), bit_xor(b) FROM (VALUES (B'101'), (B'011')) v(b);
SELECT bit_and(b), bit_or(b), bit_xor(b) FROM (VALUES (B'101'::varbit), (NULL), (B'110')) v(b);
SELECT bit_and(b), bit_or(b), bit_xor(b), count(*) FROM (VALUES (NULL::bit(3))) v(b);
SELECT bit_and(b), bit_or(b), bit_xor(b) FROM (VALUES (B'101'::bit(3))) v(b) WHERE false;
WITH g AS (SELECT i, ((i * 2654435761) % 4294967296)::int8::bit(32) AS b, substring(((i * 40503) % 65536)::int4::bit(16) from 1 for i % 3 + 4) AS v FROM generate_series(1, 1200) i) SELECT i % 3, length(v), bit_and(b), bit_or(b), bit_xor(b), bit_and(v), bit_or(v), bit_xor(v), bit_xor(b) FILTER (WHERE i % 2 = 0) FROM g GROUP BY 1, 2 ORDER BY 1, 2;
WITH g AS (SELECT i, ((i * 40503) % 65536)::int4::bit(16) AS b FROM generate_series(1, 100) i) SELECT i, bit_xor(b) OVER (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), bit_or(b) OVER (PARTITION BY i % 4) FROM g;
SELECT bit_and(b) FROM (VALUES (B'101'::varbit), (B'11')) v(b);
SELECT bit_or(b) FROM (VALUES (B'101'::varbit), (B'11')) v(b);
SELECT bit_xor(b) FROM (VALUES (B'101'::varbit), (B'11')) v(b);
SELECT bit_and(DISTINCT b), bit_or(DISTINCT b) FROM (VALUES (B'101'), (B'011'), (B'011')) v(b);
WITH g AS (SELECT i FROM generate_series(1, 300) i) SELECT i % 4, bit_and(i), bit_or(i::int2), bit_xor(i::int8 * 1000003), bit_and(-i) FROM g GROUP BY 1 ORDER BY 1;
SELECT bit_and(x), bit_or(x), bit_xor(x) FROM (VALUES (1), (NULL), (3)) v(x);
SELECT bit_and('101');
SELECT bit_or(1.5);
SELECT bit_xor(true);
