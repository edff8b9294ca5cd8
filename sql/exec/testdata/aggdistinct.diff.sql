-- array_agg(DISTINCT …) with and without ORDER BY (directions, NULLS
-- FIRST/LAST, NULL values), and string_agg(DISTINCT … ORDER BY …), with
-- PostgreSQL's rule that the ORDER BY keys be arguments as written
-- (42P10); string_agg(bytea, bytea); min/max/count/bool_and with an ORDER BY
-- of columns or constants (dropped). Before, all were refused (0A000).
select array_agg(distinct a) from (values (1),(2),(1),(3),(null),(2)) v(a);
select array_agg(distinct a order by a) from (values (1),(2),(1),(3),(null),(2)) v(a);
select array_agg(distinct a order by a desc) from (values (1),(2),(1),(3),(null),(2)) v(a);
select array_agg(distinct a order by a desc nulls last) from (values (1),(2),(1),(3),(null),(2)) v(a);
select array_agg(distinct a order by a nulls first) from (values (1),(2),(1),(3),(null),(2)) v(a);
select grp, array_agg(distinct x), array_agg(distinct k order by k desc) from w group by grp;
select array_agg(distinct s), array_agg(distinct v order by v desc) from nums;
select array_agg(distinct d) from nums;
select array_agg(distinct a order by a + 1) from (values (1)) v(a);
select string_agg(distinct v, ',' order by v) from nums;
select string_agg(distinct v::text, ',' order by v) from nums;
select string_agg(distinct v, ',' order by v::text) from nums;
select string_agg(distinct v::text, ',' order by v::text) from nums;
select string_agg(distinct s, '|' order by s desc), string_agg(distinct grp, ';' order by grp nulls first) from nums, w where nums.id = w.k;
select grp, string_agg(distinct x::text, ',' order by x::text desc) from w group by grp;
select string_agg(v, '') from (values (decode('ff','hex')), (decode('aa','hex'))) t(v);
select string_agg(v, NULL), string_agg(v, decode('ee', 'hex')), string_agg(v, '\x0102' order by v desc) from (values (decode('ff','hex')), (NULL), (decode('aa','hex'))) t(v);
select string_agg(v, '') from (values (decode('ff','hex'))) t(v) where false;
select string_agg(distinct v, '-'::bytea), string_agg(distinct v, ', '::bytea order by v desc) from (values ('\x01'::bytea), ('\x02'), ('\x01'), (NULL)) t(v);
select string_agg(v, 'x') from (values ('\x01'::bytea)) t(v);
select string_agg(s::bytea, '|') from nums /* refused: a table's order */;
SELECT min(x ORDER BY y) FROM (VALUES(1, NULL)) AS d(x,y);
SELECT min(x ORDER BY y) FROM (VALUES(1, 2)) AS d(x,y);
SELECT grp, max(x ORDER BY id DESC), count(k ORDER BY grp), bool_and(x > 2 ORDER BY id), min(f ORDER BY 1) FROM w GROUP BY grp;
SELECT min(x ORDER BY nosuch) FROM w;
SELECT min(x ORDER BY x / 0) FROM w /* refused: a key that could fail */;
SELECT sum(x ORDER BY id) FROM w /* refused: sum's order */;
