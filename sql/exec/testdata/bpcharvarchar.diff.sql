-- character(n) compared with character varying: PostgreSQL reads the
-- varchar side as bpchar (bpchar = bpchar is the one candidate matching
-- an operand exactly), so trailing blanks do not count; with text the
-- comparison is text's (trailing blanks count). Found by randwide seed
-- 1796543353616128463 (c >= g::varchar(3) dropped rows).
SELECT id, c = 'a '::varchar, c = (v || ' ')::varchar, c >= (v || '  ')::varchar(5), c < 'a '::varchar FROM nums ORDER BY id;
SELECT id FROM nums WHERE c = (s || ' ')::varchar ORDER BY id;
SELECT id FROM nums WHERE (s || ' ')::varchar = c ORDER BY id;
SELECT id, c = (s || ' ')::text, c::varchar = s || ' ' FROM nums ORDER BY id;
SELECT a.id, b.id FROM nums a JOIN nums b ON a.c = (b.s || ' ')::varchar ORDER BY 1, 2;
SELECT id, CASE WHEN c = (v || ' ')::varchar THEN 'eq' ELSE 'ne' END FROM nums ORDER BY id;
SELECT count(*) FROM nums WHERE c <> (s || '   ')::varchar;
SELECT id FROM nums WHERE c IN ((s || ' ')::varchar, 'zz'::varchar) ORDER BY id;
SELECT id FROM nums WHERE c NOT IN ((s || ' ')::varchar, 'zz'::varchar) ORDER BY id;
SELECT id, c IN ((v || '  ')::varchar) FROM nums ORDER BY id;
