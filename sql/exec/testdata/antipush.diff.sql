-- Anti joins (NOT EXISTS) over a FROM list's inner joins, which
-- sql/opt semipush.go puts onto the one relation their condition reads
-- when that relation gives no more rows than the joins: NULL keys on
-- either side, several matches of one row, residual comparisons of two
-- columns, keys converted between types, a NOT EXISTS beside an EXISTS,
-- under an aggregate, and NOT IN (no anti join: a NULL among the
-- subquery's rows makes it NULL) beside them.
SELECT a.id, b.id FROM w a JOIN w b ON a.k = b.id WHERE NOT EXISTS (SELECT 1 FROM w c WHERE c.k = a.id) ORDER BY 1, 2;
SELECT a.id, b.id FROM w a JOIN w b ON a.k = b.id WHERE NOT EXISTS (SELECT 1 FROM w c WHERE c.k = b.k AND c.x > b.x) ORDER BY 1, 2;
SELECT a.id, b.grp FROM w a, w b WHERE a.grp = b.grp AND a.id < b.id AND NOT EXISTS (SELECT 1 FROM w c WHERE c.id = a.k) ORDER BY 1, 2;
SELECT a.id, n.id FROM w a JOIN nums n ON n.id = a.k WHERE NOT EXISTS (SELECT 1 FROM w c WHERE c.k = n.i2 AND c.id <> a.id) ORDER BY 1, 2;
SELECT a.id, n.id FROM w a JOIN nums n ON n.i8 = a.k WHERE NOT EXISTS (SELECT 1 FROM w c WHERE c.x = n.id) ORDER BY 1, 2;
SELECT a.id, b.id FROM w a JOIN w b ON a.k = b.k WHERE EXISTS (SELECT 1 FROM w c WHERE c.id = a.k) AND NOT EXISTS (SELECT 1 FROM w d WHERE d.k = b.id) ORDER BY 1, 2;
SELECT b.grp, count(*), count(a.x) FROM w a JOIN w b ON a.k = b.id WHERE NOT EXISTS (SELECT 1 FROM w c WHERE c.k = a.k AND c.id <> a.id) GROUP BY b.grp ORDER BY 1;
SELECT a.id, b.id FROM w a JOIN w b ON a.k = b.id WHERE NOT EXISTS (SELECT 1 FROM w c WHERE c.k = a.id AND c.x IS NULL) ORDER BY 1, 2;
SELECT a.id, b.id FROM w a JOIN w b ON a.k = b.id WHERE a.id NOT IN (SELECT k FROM w c WHERE c.x > 10) ORDER BY 1, 2;
SELECT a.id, b.id FROM w a JOIN w b ON a.k = b.id WHERE a.id NOT IN (SELECT k FROM w c WHERE c.k IS NOT NULL) ORDER BY 1, 2;
SELECT a.id, b.id FROM w a JOIN w b ON a.k = b.id WHERE NOT EXISTS (SELECT 1 FROM w c WHERE c.k = a.id AND c.id > 1000) ORDER BY 1, 2;
