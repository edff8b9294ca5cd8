-- A top-N over a scan gives the scan its worst kept row's first key as a
-- bound (topn_filter.go): rows strictly worse are dropped before their
-- other columns are decoded. NULLs first and last, both directions, ties
-- on the first key broken by the next, ties across the cut, OFFSET, a
-- filter of the scan's own, a projection of columns, a computed one.
SELECT * FROM w ORDER BY x, id LIMIT 3;
SELECT * FROM w ORDER BY x DESC, id LIMIT 3;
SELECT * FROM w ORDER BY x NULLS FIRST, id LIMIT 4;
SELECT * FROM w ORDER BY x DESC NULLS LAST, id LIMIT 2;
SELECT * FROM w ORDER BY x LIMIT 3;
SELECT id, grp FROM w ORDER BY grp DESC, id LIMIT 5;
SELECT id, grp FROM w ORDER BY grp NULLS FIRST, id DESC LIMIT 3;
SELECT * FROM w ORDER BY y, id LIMIT 4;
SELECT * FROM w ORDER BY y DESC NULLS LAST, id LIMIT 4;
SELECT * FROM w ORDER BY f DESC, id LIMIT 3 OFFSET 2;
SELECT id, x FROM w WHERE grp <> 'c' ORDER BY x, id LIMIT 3;
SELECT id, k FROM w ORDER BY k, id LIMIT 5;
SELECT id, k FROM w ORDER BY k LIMIT 3 /* refused: rows tied on k across the cut */;
SELECT id, k FROM w ORDER BY k LIMIT 2 /* refused: rows tied on k across the cut */;
SELECT k FROM w ORDER BY k LIMIT 4;
SELECT id, k FROM w ORDER BY k DESC NULLS LAST, id DESC LIMIT 4;
SELECT id, k FROM w ORDER BY k DESC LIMIT 1 /* refused: rows tied on k across the cut */;
SELECT 100 / (x - 10) FROM w ORDER BY k LIMIT 1 /* refused: whether the division fails is PostgreSQL's plan's */;
SELECT id, 100 / (x - 10) AS q FROM w ORDER BY id LIMIT 1 /* refused: whether the division fails is PostgreSQL's plan's */;
SELECT * FROM (SELECT id, k AS kk FROM w) s ORDER BY kk, id LIMIT 3;
SELECT * FROM (SELECT id, k AS kk FROM w) s ORDER BY kk DESC, id LIMIT 3 OFFSET 1;
SELECT i8, id FROM nums ORDER BY i8 DESC LIMIT 2;
SELECT d, id FROM nums ORDER BY d LIMIT 2;
SELECT dt, id FROM nums ORDER BY dt DESC LIMIT 3;
SELECT f, id FROM nums ORDER BY f LIMIT 3;
SELECT * FROM jv ORDER BY n, id LIMIT 5;
SELECT * FROM jv ORDER BY n DESC, id LIMIT 5;
SELECT * FROM jv ORDER BY i8, id LIMIT 4;
SELECT * FROM jv ORDER BY i2 DESC NULLS LAST, id LIMIT 6;
SELECT * FROM jv ORDER BY id LIMIT 2;
SELECT * FROM jv ORDER BY id DESC LIMIT 3 OFFSET 4;
SELECT id, k FROM jv WHERE k > 1 ORDER BY k DESC, id LIMIT 3;
SELECT id FROM jv ORDER BY id LIMIT 0;
