-- ARRAY(SELECT …): the subquery's values in its ORDER BY's order, '{}'
-- without rows; correlated ones per outer row. Rows the ORDER BY leaves
-- tied with different values are refused (PostgreSQL's sort decides).
select array(select n from t2 order by n);
select array(select name from t3 order by n desc);
select array(select n from t2 where n > 100 order by n);
select array(select n from t2 where n > 100);
select array(select n from t2 where name = 'bb');
select t1.name, array(select t3.n from t3 where t3.n > t1.n order by t3.n) from t1;
select id, array(select x from w where w.k = nums.id order by x nulls first) from nums order by id;
select id, array(select x from w where w.k = nums.id order by x desc nulls last, id) as xs from nums order by id;
select id, array(select s from nums n2 where n2.id <= nums.id order by n2.id) from nums order by id;
select array(select sum(x+y) s from generate_series(1,3) y group by y order by s) from generate_series(1,3) x;
select array(select distinct k from w where k is not null order by k);
select array(select d from nums order by 1);
select array(select i from generate_series(3, 1, -1) i order by i);
select cardinality(array(select id from nums order by id)), (array(select id from nums order by id))[2];
select array(select n from t2 union select n from t3 order by 1);
select array(select grp from w where id in (6, 7));
select array(select k from w order by k);
select array(select x from w order by k) /* refused: ties on k hold different x */;
select array(select n from t3) /* refused: no ORDER BY, rows differ */;
