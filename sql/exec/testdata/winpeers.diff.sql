-- Window functions whose value depends on the order among peers: answered
-- where the peers differ only in columns nobody reads, or where a sort
-- below (a subquery's ORDER BY starting with the window's keys) orders
-- them as PostgreSQL reads them; refused where PostgreSQL's order decides.
SELECT last_value(x) OVER (PARTITION BY grp), x, grp FROM (SELECT * FROM w ORDER BY grp, x) s;
SELECT nth_value(x, 2) OVER (PARTITION BY grp), x, grp FROM (SELECT * FROM w ORDER BY grp, x) s ORDER BY grp, x;
SELECT grp, k, sum(k) OVER (PARTITION BY grp ORDER BY k ROWS UNBOUNDED PRECEDING) FROM w;
SELECT grp, first_value(x) OVER (PARTITION BY grp ORDER BY k, x) FROM (SELECT * FROM w ORDER BY grp, k, x) s WHERE x IS NOT NULL;
SELECT id, row_number() OVER (PARTITION BY grp ORDER BY k) FROM w /* refused */;
SELECT last_value(id) OVER (PARTITION BY grp), grp FROM (SELECT * FROM w ORDER BY grp, k) s /* refused */;
SELECT last_value(x) OVER (PARTITION BY grp), row_number() OVER (ORDER BY id), x, grp FROM (SELECT * FROM w ORDER BY grp, x) s /* refused: two windows, PostgreSQL picks their order */;
SELECT last_value(x) OVER (PARTITION BY grp), x, grp FROM (SELECT * FROM w ORDER BY grp DESC, x) s /* refused: PostgreSQL sorts again */;
-- The select list reads the window's own ORDER BY expression (k/4), not k:
-- peers that differ only in k give the same rows in any order (winshare.go).
SELECT grp, k/4 AS two, sum(k/4) OVER (PARTITION BY grp ORDER BY k/4 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), last_value(k/4) OVER (PARTITION BY grp ORDER BY k/4 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM (SELECT DISTINCT k, grp FROM w) ss;
SELECT grp, k/4 + 1 AS three, sum(k/4) OVER (PARTITION BY grp ORDER BY k/4 ROWS UNBOUNDED PRECEDING) FROM (SELECT DISTINCT k, grp FROM w) ss ORDER BY 1, 2;
SELECT grp, k, sum(k/4) OVER (PARTITION BY grp ORDER BY k/4 ROWS UNBOUNDED PRECEDING) FROM (SELECT DISTINCT k, grp FROM w) ss /* refused: k differs among peers */;
-- array_agg over a window: the frame's values, NULLs included, in the
-- window's order; refused where peers that differ would be ordered by
-- PostgreSQL's sort.
SELECT array_agg(i) OVER w FROM generate_series(1,5) i WINDOW w AS (ORDER BY i ROWS BETWEEN (('foo' < 'foobar')::integer) PRECEDING AND CURRENT ROW);
SELECT id, array_agg(x) OVER (PARTITION BY grp ORDER BY id), array_agg(y) FILTER (WHERE k > 1) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM w;
SELECT id, array_agg(grp) OVER (ORDER BY id RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW) FROM w WHERE id < 6;
SELECT id, array_agg(NULL::int) OVER (ORDER BY id) FROM w;
SELECT id, k, array_agg(k) OVER (ORDER BY k, id GROUPS 1 PRECEDING) FROM w;
SELECT id, array_agg(x) OVER (PARTITION BY grp ORDER BY k) FROM w /* refused: peers with different x */;
