-- WITH inside a correlated subquery reading the outer query's columns:
-- its rows follow the outer row (regression with.sql, subselect.sql).
select ( with cte(foo) as ( values(n) ) select (select foo from cte) ) from t2 order by 1;
select ( with cte(foo) as ( values(n) ) values((select foo from cte)) ) from t2 order by 1;
select name, (with c as (select t3.n from t3 where t3.n > t2.n) select count(*) from c) from t2 order by 1;
select name, (with c as (select n + t2.n as m from t3), d as (select m from c where m > 40) select sum(m) from d) from t2 order by 1;
select t2.name, x.s from t2, lateral (with c as (select t3.n from t3 where t3.n < t2.n) select sum(n) as s from c) x order by 1;
select sum(o.n), sum(ss.a) from t2 o cross join lateral ( with recursive x(a) as (select o.n as a union select a + 1 from x where a < 30) select * from x ) ss;
select id, (with c as (select 1 as one) select one + nums.id from c) from nums order by id;
select name from t2 where exists (with c as (select t3.n from t3 where t3.n = t2.n + 1) select 1 from c) order by 1;
select name, (with c as (select t2.n * 2 as d) select (select d from c) + (select sum(d) from c)) from t2 order by 1;
select name, (with c as (select t2.n as d) select (select (select d + 1 from c))) from t2 order by 1;
