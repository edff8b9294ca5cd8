-- array_agg, string_agg and the JSON aggregates without ORDER BY over a
-- sorted subquery read its rows in the subquery's order, as PostgreSQL
-- (sql/exec/aggsorted.go); where the subquery's keys leave rows tied
-- that print differently, refused.
SELECT json_agg(s) FROM (SELECT id, s, d FROM nums ORDER BY id) s;
SELECT json_agg(s), jsonb_agg(s.id) FROM (SELECT id, s FROM nums ORDER BY id DESC LIMIT 4) s;
SELECT array_agg(id), string_agg(s, ',') FROM (SELECT id, s FROM nums ORDER BY d NULLS FIRST, id) x;
SELECT array_agg(s) FROM (SELECT s FROM nums ORDER BY id) x;
SELECT coalesce(json_agg(r), '[]') FROM (SELECT row_to_json(q) AS r FROM (SELECT id, i8 FROM nums WHERE id > 100 ORDER BY id) q) r;
SELECT json_agg(x.id) FROM (SELECT id FROM nums WHERE b ORDER BY i2, id) x WHERE x.id > 1;
SELECT json_object_agg(id, s) FROM (SELECT id, s FROM nums ORDER BY id) x;
SELECT array_agg(id) FROM (SELECT id, b FROM nums ORDER BY b) x /* refused: tied rows (b repeats) print differently */;
SELECT array_agg(DISTINCT id) FROM (SELECT id FROM nums ORDER BY id) x;
