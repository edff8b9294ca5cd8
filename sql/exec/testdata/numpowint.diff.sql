-- power(numeric, integer) and numeric ^ integer (power_var_int): exact
-- digits rounded half away from zero at PostgreSQL's result scale. The
-- scale changed in PostgreSQL 16 (14–15: 16 or the base's; 16 on: 16
-- significant digits from an estimate of the weight, at least the
-- base's and the exponent's scales): with the major unknown, sidecar
-- answers where they agree and refuses the rest.
select power(2::numeric, 3), 2::numeric ^ 3, power(2.5::numeric, 2), power(3::numeric, -2), 2::numeric ^ -3;
select power(-2::numeric, 3), power(-2::numeric, 2), power(-1.5::numeric, -1), (-0.5)::numeric ^ 3;
select power(-0.3::numeric, 3) /* refused: the scale depends on the major */;
select power(1.01::numeric, 10), power(0.99::numeric, 50), power(7::numeric, -1), power(-7::numeric, -1), power(0.3::numeric, -1);
select power(1.5::numeric, 5), power(0.5::numeric, -3), power(1.1::numeric, 20), power(0.9::numeric, -20);
select power(1.23456789012345678::numeric, 3), power(1.00000000000000000001::numeric, 5), power(-1.00000000000000000001::numeric, -3);
select power(2::numeric, 1), power(2.50::numeric, 1), power(-2.5::numeric, -1), power(8::numeric, -1);
select power(1::numeric, 2147483647), power(-1::numeric, 2147483647), power(-1::numeric, -2147483648), power(1.000::numeric, 123456);
select power(0::numeric, 3), power(0::numeric, 0), power(5::numeric, 0), power(5.123::numeric, 0), power(0.0::numeric, 5);
select power(0::numeric, -1);
select power(0.0::numeric, -3);
select power(10::numeric, 131072);
select power(10::numeric, 200000);
select power(2::numeric, 2147483647);
select power(-3::numeric, 1000000);
select power(3::numeric, 3.0) /* refused: 16 on count the exponent's scale (the major decides) */;
select power(2::numeric, 3::int8), power(3::numeric, 2::int2), 3::int4 ^ 2::numeric, 2::numeric ^ 3::int4;
select power('NaN'::numeric, 3), power(3::numeric, 'NaN'), power('NaN'::numeric, 0);
select power(null::numeric, 3), power(3::numeric, null);
select id, d, power(d, 1), power(d, 0), power(d, 2) from nums where d < 10 or d is null;
select id, d, power(d, 1) from nums /* refused: 100 ^ 1 has scale 16 on 14-15, 14 on 16 on (the major decides) */;
select power(2.5::numeric, 3) /* refused: 14-15 answer scale 16, 16 on 15 (the major decides) */;
select power(2::numeric, 100) /* refused: the scale depends on the major */;
select power(0.99::numeric, 1000) /* refused: the scale depends on the major */;
