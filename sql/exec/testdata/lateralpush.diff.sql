-- WHERE conjuncts on a lateral join's left side filter its rows before
-- the right side runs for them, as PostgreSQL's nested loop has them on
-- its outer scan: the right side never runs (and never fails) for a row
-- the WHERE removes. Before, the filter ran above the lateral join.
SELECT a.id, x.q FROM nums a, LATERAL (SELECT 10 / (a.id - 3) AS q) x WHERE a.id <> 3 ORDER BY a.id;
SELECT a.id, x.q FROM nums a LEFT JOIN LATERAL (SELECT 10 / (a.id - 3) AS q) x ON true WHERE a.id < 3 ORDER BY a.id;
SELECT a.id, x.q FROM nums a CROSS JOIN LATERAL (SELECT 10 / (a.id - 3) AS q WHERE a.id > 0) x WHERE a.id > 3 AND x.q IS NOT NULL ORDER BY a.id;
SELECT a.id, g FROM nums a, generate_series(1, 10 / (a.id - 3)) g WHERE a.id = 4 ORDER BY g;
SELECT a.id, x.q FROM nums a, LATERAL (SELECT 10 / (a.id - 3) AS q) x WHERE a.id = 3;
-- Bigint keys bounded by integer literals (the key range is a hint: the
-- filter still decides).
SELECT a.id, x.i8 FROM nums a, LATERAL (SELECT b.i8 FROM nums b WHERE b.i8 = a.i8 * 1) x WHERE a.id <= 2 ORDER BY 1;
