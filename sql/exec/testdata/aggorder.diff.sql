-- string_agg, array_agg and json_agg without ORDER BY over inputs that
-- PostgreSQL reads in a known order (a VALUES list, generate_series,
-- unnest), under filters and projections, with no GROUP BY: the values
-- in that order. Before, each was refused (the tie refusal); over other
-- inputs, or grouped, the refusal stands.
select string_agg(a,',') from (values('aaaa'),('bbbb'),('cccc')) g(a);
select string_agg(a,',') from (values('aaaa'),(null),('bbbb'),('cccc')) g(a);
select string_agg(a,'AB') from (values(null),(null),('bbbb'),('cccc')) g(a);
select string_agg(a,',') from (values(null),(null)) g(a);
select array_agg(i), string_agg(i::text, '-') FROM generate_series(1, 20) g(i) WHERE i % 3 <> 0;
select format(string_agg('%s',','), variadic array_agg(i)) from generate_series(1,200) g(i);
select array_agg(x), json_agg(x), string_agg(upper(x), '') from unnest(array['b', 'a', NULL, 'c']) u(x);
select array_agg(v), string_agg(v::text, ' ') from (values (3), (1), (2)) t(v) where v > 1;
select k, string_agg(v, ',') from (values (1, 'z'), (1, 'y'), (2, 'x')) t(k, v) group by k /* refused: grouped, PostgreSQL may sort */;
select string_agg(s, ',') from nums /* refused: a table's order is PostgreSQL's scan's */;
