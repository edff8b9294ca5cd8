-- An aggregate in a subquery whose arguments and FILTER read columns of
-- the enclosing query only is that query's aggregate (regression
-- aggregates.sql): the enclosing query is grouped by it.
select (select max(0) filter (where b)) from nums;
select (select count(*) filter (where outer_c <> 0) from (values (1)) t0(inner_c)) from (values (2),(3)) t1(outer_c);
select (select max((select t2.n from t2 where t2.name = o.name))) from t2 o;
select (select max((select t3.n from t3 where t3.name = o.name)) filter (where o.n < 30)) from t2 o;
select (select sum(o.n) + count(*) from t3) from t2 o;
select name, (select sum(o.n)) from t2 o group by name order by name;
select name, sum(n) from t2 a group by name having exists (select 1 from t3 b where sum(a.n) + 1 = b.n) order by name;
select name from t2 a group by name having exists (select 1 from t3 b where max(a.n) + 1 = b.n and b.name = a.name) order by name;
select grp, (select array_agg(w.x order by w.x) from t1) from w group by grp order by grp;
select (select string_agg(o.name, ',' order by o.name)) from t3 o;
select id, (select max(t3.n + nums.id) from t3) from nums order by id;
select (select count(o.n) from t3 i where i.n > 20) from t2 o;
-- GROUPING() of the enclosing query's expressions, and aggregates two
-- levels out (regression groupingsets.sql).
select (select grouping(v1)) from (values ((select 1))) v(v1) group by cube(v1);
select (select grouping(v1)) from (values ((select 1))) v(v1) group by v1;
select grp, (select grouping(w.grp)) from w group by rollup (grp) order by 1, 2;
select (select (select grouping(a,b) from (values (1)) v2(c)) from (values (1,2)) v1(a,b) group by (a,b)) from (values(6,7)) v3(e,f) group by rollup(e,f);
select (select (select grouping(e,f) from (values (1)) v2(c)) from (values (1,2)) v1(a,b) group by (a,b)) from (values(6,7)) v3(e,f) group by rollup(e,f);
select (select (select sum(o.n) from t1) from t3) from t2 o;
select name, (select (select max(o.n) + t1.n from t1)) from t2 o group by name order by name;
