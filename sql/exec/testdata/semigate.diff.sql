-- PostgreSQL's subselect.sql statements that sidecar answered in
-- session 12 and refused since: a semi join's condition on its right
-- side alone (`1 IN (SELECT 1)`) was made a gate above the join, where
-- the right side's column is not (sql/opt pushdown.go), and a DISTINCT
-- ON under an IN kept columns nothing reads, so rows of a group tied
-- in PostgreSQL's order that differ only there were refused (sql/opt
-- prune.go drops them, as remove_unused_subquery_outputs does).
SELECT 1 AS one WHERE 1 IN (SELECT 1);
SELECT 1 AS zero WHERE 1 IN (SELECT 2);
SELECT 1 AS one WHERE 40 IN (SELECT x FROM w);
SELECT 1 AS zero WHERE 41 IN (SELECT x FROM w);
SELECT a.id FROM w a WHERE 5 IN (SELECT b.x FROM w b WHERE b.k = a.k);
SELECT a.id FROM w a WHERE a.k IN (SELECT 1) AND 2 IN (SELECT 2);
SELECT a.id FROM w a WHERE EXISTS (SELECT 1 FROM w b WHERE b.x = 40 AND b.k = a.k);
SELECT a.id FROM w a WHERE a.k IN (SELECT k FROM (SELECT DISTINCT ON (k) id, k FROM w) s);
SELECT s.k FROM (SELECT DISTINCT ON (k) id, k, grp FROM w) s;
SELECT s.k, s.grp FROM (SELECT DISTINCT ON (k) id, k, grp FROM w ORDER BY k, grp) s;
SELECT count(*) FROM (SELECT DISTINCT ON (grp) id, grp FROM w) s;
SELECT s.k, s.id FROM (SELECT DISTINCT ON (k) id, k FROM w) s /* refused: the kept id depends on PostgreSQL's order of tied rows */;
