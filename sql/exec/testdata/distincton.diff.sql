-- DISTINCT ON keeps each group's first row in its sort's order; rows
-- the ORDER BY leaves tied come out of PostgreSQL's sort in an order
-- its plan decides, so a group whose first row ties with a row that
-- prints differently is refused (distincton.go). Found by the lead's
-- SaaS workload: DISTINCT ON (org_id) … ORDER BY org_id answered other
-- rows than PostgreSQL; with ORDER BY keys that decide, a LIMIT above
-- it was refused.
SELECT DISTINCT ON (grp) grp, id FROM w ORDER BY grp /* refused: ids tied in a group */;
SELECT DISTINCT ON (grp) grp, id FROM w /* refused: no ORDER BY */;
SELECT DISTINCT ON (grp) grp, x FROM w ORDER BY grp, k /* refused: a's k = 1 rows differ in x */;
SELECT DISTINCT ON (grp, k) grp, k, id FROM w ORDER BY grp /* refused */;
SELECT DISTINCT ON (grp, k) grp, k FROM w ORDER BY grp LIMIT 2 /* refused: the cut falls inside grp a */;
SELECT DISTINCT ON (grp) grp, id FROM w ORDER BY grp, id;
SELECT DISTINCT ON (grp) grp, id FROM w ORDER BY grp DESC NULLS LAST, id DESC;
SELECT DISTINCT ON (grp) grp, k FROM w ORDER BY grp, k;
SELECT DISTINCT ON (grp) grp, x, y FROM w WHERE grp = 'b' ORDER BY grp, k;
SELECT DISTINCT ON (grp) grp, k, x FROM w ORDER BY grp, k, x NULLS FIRST, id;
SELECT DISTINCT ON (grp) grp, id FROM w ORDER BY grp, id LIMIT 2;
SELECT DISTINCT ON (grp) grp, id FROM w ORDER BY grp, id DESC LIMIT 1 OFFSET 1;
SELECT DISTINCT ON (grp) grp, id FROM w ORDER BY grp NULLS FIRST, id LIMIT 3;
SELECT DISTINCT ON (k) k FROM w ORDER BY k LIMIT 3;
SELECT DISTINCT ON (k) k, grp FROM w WHERE grp IS NOT NULL ORDER BY k, grp LIMIT 4;
SELECT DISTINCT ON (grp, k) grp, k, id FROM w ORDER BY grp, k, id LIMIT 5;
SELECT count(*) FROM (SELECT DISTINCT ON (grp) grp, id FROM w ORDER BY grp, id LIMIT 2) s;
SELECT DISTINCT ON (id % 3) id % 3, id FROM w ORDER BY id % 3, id;
