-- min and max over types PostgreSQL has them for and sidecar does not
-- compute (arrays on every major): refused 0A000, not 42883 "does not
-- exist" (sql/plan typefacts.go minMaxElsewhere); over types no major
-- has them for (boolean): PostgreSQL's 42883.
SELECT max(ta) FROM arr /* refused: min/max over arrays */;
SELECT min(ia), max(id) FROM arr /* refused: min/max over arrays */;
SELECT id, max(na) FROM arr GROUP BY id ORDER BY id /* refused: min/max over arrays */;
SELECT max(b) FROM nums;
SELECT min(b) FROM nums GROUP BY id;
SELECT max(s), min(c), max(v), min(dt) FROM nums;
