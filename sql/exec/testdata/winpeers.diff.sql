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
