-- Grouping sets whose NULL group and total row (or two sets' rows)
-- print alike in every grouping column and tie on every ORDER BY key:
-- PostgreSQL's plan decides their order (groupsetties.go), refused.
select a, sum(v) from (values (1, 10), (null, 20), (2, 5)) t(a, v) group by rollup (a) order by a /* refused: tie order */;
select a, sum(v) from (values (1, 10), (null, 20), (2, 5)) t(a, v) group by rollup (a) order by a desc limit 2 /* refused: tie order */;
select a, b, sum(v) from (values (1, 'x', 10), (null, 'y', 20), (null, null, 3)) t(a, b, v) group by rollup (a, b) order by 1, 2 /* refused: tie order */;
select a, b, count(*) from (values (1, 'x'), (null, 'y'), (null, null)) t(a, b) group by cube (a, b) order by 1, 2 /* refused: tie order */;
select a, b, count(*) from (values (1, 'x'), (null, 'y'), (3, null)) t(a, b) group by grouping sets ((a), (b), ()) order by 1, 2 /* refused: tie order */;
select sum(v) from (values (1, 10), (null, 20), (2, 5)) t(a, v) group by rollup (a) order by a /* refused: tie order */;
select distinct a, sum(v) from (values (1, 10), (null, 20), (2, 5)) t(a, v) group by rollup (a) order by a /* refused: tie order */;
-- Answered: no NULL group, rows told apart by a grouping column or by
-- GROUPING() as a key, or tied rows printing alike.
select a, sum(v) from (values (1, 10), (3, 20), (2, 5)) t(a, v) group by rollup (a) order by a;
select a, sum(v) from (values (1, 10), (null, 20), (2, 5)) t(a, v) group by rollup (a) order by a, grouping(a);
select a, sum(v) from (values (1, 10), (null, 20), (2, 5)) t(a, v) group by rollup (a) order by a, 2;
select a, b, sum(v) from (values (1, 'x', 10), (null, 'y', 20), (null, null, 3)) t(a, b, v) group by rollup (a, b) order by 1, 2, grouping(a, b);
select a, count(*) from (values (1), (null), (2)) t(a) group by rollup (a) order by count(*), a, grouping(a);
select a from (values (1), (null), (2)) t(a) group by rollup (a) order by a;
select a, sum(v) from (values (1, 10), (null, 20), (2, 5)) t(a, v) group by a order by a;
select distinct a from (values (1), (null), (2)) t(a) group by rollup (a) order by a;
