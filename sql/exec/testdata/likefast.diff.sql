-- LIKE patterns of literal text and '%' alone are matched by substring
-- search (likefast.go); those with '_', escapes or a pattern from a
-- column go through like(). Anchored heads and tails that overlap,
-- repeated literals, multibyte text, empty subjects and patterns.
SELECT s, s LIKE '%special%requests%', s NOT LIKE '%special%requests%', s LIKE 'special%', s LIKE '%requests', s LIKE '%s%s%s%' FROM (VALUES ('special requests'), ('requests special'), ('specialrequests'), ('special'), (''), ('xspecial yrequestsz'), ('spécial requêtes'), ('special requests special'), (NULL)) v(s) ORDER BY 1;
SELECT s, s LIKE 'ab%ba', s LIKE 'aba%aba', s LIKE '%', s LIKE '', s LIKE 'aba', s LIKE '%aba%aba%', s LIKE 'a%%%a' FROM (VALUES ('aba'), ('ababa'), ('abba'), ('abaaba'), ('a'), (''), ('ab')) v(s) ORDER BY 1;
SELECT s, s LIKE '%é%', s LIKE 'é%', s LIKE '%ê_', s LIKE '%te\%%' FROM (VALUES ('été'), ('ete'), ('tête'), ('te%st'), ('É')) v(s) ORDER BY 1;
SELECT s, s ILIKE '%T%', s NOT ILIKE 'ET%', s ILIKE 'te%St' FROM (VALUES ('ete'), ('Tete'), ('te%st'), ('')) v(s) ORDER BY 1;
SELECT s, p, s LIKE p, s NOT LIKE p FROM (VALUES ('abc', 'a%'), ('abc', 'b%'), ('abc', '%c'), ('abc', 'a_c'), ('abc', 'a%'), ('xbc', 'a%'), ('a%c', 'a\%c'), ('abc', NULL)) v(s, p) ORDER BY 1, 2;
SELECT id, s FROM nums WHERE s LIKE '%b%' OR s NOT LIKE '%' ORDER BY id;
SELECT name, count(*) FROM t1 WHERE name NOT LIKE '%b%b%' GROUP BY name ORDER BY name;
SELECT id, grp FROM w WHERE grp LIKE 'a' OR grp LIKE '%c' ORDER BY id;
