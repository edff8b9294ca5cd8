-- An explicit COLLATE other than the database default is bound as a
-- marker sql/exec evaluates as its argument (the SQL front end picks the
-- order: sqlfront/collate_explicit.go); on a non-text type it is
-- PostgreSQL's 42804.
SELECT s FROM nums ORDER BY s COLLATE "C";
SELECT id FROM nums WHERE s COLLATE "C" < 'b';
SELECT id FROM nums WHERE 'B' COLLATE "POSIX" <= s;
SELECT min(v COLLATE "C"), max(c COLLATE "ucs_basic") FROM nums;
SELECT upper(s COLLATE "C") || 'x' COLLATE "C" FROM nums;
SELECT id FROM nums WHERE s COLLATE "C" = 'a';
SELECT i2 COLLATE "C" FROM nums;
SELECT id FROM nums ORDER BY b COLLATE "C";
