-- factorial(bigint) → numeric: negative 22003 (PostgreSQL 14 on), 0! = 1! = 1,
-- past 32177! 22003.
select factorial(5), factorial(0), factorial(1), factorial(2), factorial(20), factorial(21), factorial(30);
select factorial(-1);
select factorial(-9223372036854775808);
select factorial(32178);
select factorial(9223372036854775807);
select length(factorial(1000)::text), length(factorial(3000)::text);
select factorial(null), factorial(3::int2), factorial(4::int4), factorial('6');
select factorial(5.4);
select factorial(5.5::numeric);
select factorial('x');
select id, i2, factorial(i2), factorial(id) from nums;
