-- ORDER BY over keys that compare equal but print differently: the
-- order among such rows is PostgreSQL's plan's (its sort is not
-- stable), so the statement is refused (sortties.go); ties printing
-- alike, and ties the other keys break, are answered.
SELECT x FROM (VALUES (1.0), (1.00), (2)) v(x) ORDER BY x /* refused: 1.0 and 1.00 tie */;
SELECT x FROM (VALUES (1.0), (2), (1.00)) v(x) ORDER BY x DESC /* refused: 1.0 and 1.00 tie */;
SELECT x FROM (VALUES ('-0'::float8), (0), (1)) v(x) ORDER BY x /* refused: -0 and 0 tie */;
SELECT x FROM (VALUES (interval '1 day'), (interval '24 hours')) v(x) ORDER BY x /* refused: 1 day and 24:00:00 tie */;
SELECT x FROM (VALUES ('a'::bpchar), ('a '::bpchar)) v(x) ORDER BY x /* refused: a and a blank tie */;
SELECT y * 1.0 AS z FROM w UNION ALL SELECT y FROM w ORDER BY 1 /* refused: 1.50 and 1.5 tie */;
SELECT z FROM (SELECT y * 1.0 AS z FROM w UNION ALL SELECT y FROM w) s ORDER BY 1 LIMIT 2 /* refused: the kept rows hold 0.50 and 0.5 */;
SELECT a.y * 1.0 AS z, b.id FROM w a JOIN w b ON b.id = a.id ORDER BY 1, 2 LIMIT 3;
SELECT x, n FROM (VALUES (1.0, 1), (1.00, 2), (2, 3)) v(x, n) ORDER BY x, n;
SELECT x, n FROM (VALUES (1.0, 1), (1.00, 2), (2, 3)) v(x, n) ORDER BY x, n DESC;
SELECT x FROM (VALUES (1.0), (1.0), (2)) v(x) ORDER BY x;
SELECT y FROM w ORDER BY y NULLS FIRST;
SELECT count(*) FROM (SELECT x FROM (VALUES (1.0), (1.00)) v(x) ORDER BY x) s;
SELECT x FROM (VALUES (1.0), (1.00)) v(x) ORDER BY x::text;
SELECT x::text FROM (VALUES (1.0), (1.00), (3)) v(x) ORDER BY x DESC LIMIT 1;
