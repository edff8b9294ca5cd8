-- json_agg, jsonb_agg, json_object_agg, jsonb_object_agg compared with
-- PostgreSQL: ORDER BY inside, NULL inputs and keys, no rows, grouping,
-- FILTER, value types (text with escapes and unicode, numbers of
-- different scales, json as written, jsonb), duplicate keys.
SELECT json_agg(id ORDER BY id), jsonb_agg(id ORDER BY id DESC) FROM jo;
SELECT json_agg(j ORDER BY id), jsonb_agg(j ORDER BY id) FROM jo WHERE id < 20;
SELECT json_agg(t ORDER BY id), jsonb_agg(t ORDER BY id) FROM js;
SELECT json_agg(j ORDER BY id), jsonb_agg(j ORDER BY id) FROM js;
SELECT json_agg(s ORDER BY id), jsonb_agg(s ORDER BY id), json_agg(d ORDER BY id), jsonb_agg(d ORDER BY id) FROM nums;
SELECT json_agg(b ORDER BY id), jsonb_agg(i8 ORDER BY id NULLS FIRST), json_agg(v ORDER BY id DESC), json_agg(c ORDER BY id) FROM nums;
SELECT json_agg(id ORDER BY id) FROM jo WHERE id > 1000;
SELECT jsonb_agg(id ORDER BY id), json_object_agg(id, j ORDER BY id), jsonb_object_agg(id, j ORDER BY id) FROM jo WHERE false;
SELECT json_object_agg(id, j ORDER BY id), jsonb_object_agg(id, j ORDER BY id) FROM jo WHERE id < 15;
SELECT json_object_agg(jsonb_typeof(j), id ORDER BY id), jsonb_object_agg(jsonb_typeof(j), id ORDER BY id) FROM jo WHERE j IS NOT NULL;
SELECT json_object_agg(s, d ORDER BY id), jsonb_object_agg(s, i2 ORDER BY id) FROM nums WHERE s IS NOT NULL;
SELECT json_object_agg(s, d ORDER BY id) FROM nums;
SELECT jsonb_object_agg(s, d ORDER BY id) FROM nums;
SELECT jsonb_typeof(j), json_agg(id ORDER BY id), jsonb_agg(j ORDER BY id) FILTER (WHERE id > 5) FROM jo GROUP BY jsonb_typeof(j);
SELECT json_agg('x' ORDER BY id), jsonb_agg('x' ORDER BY id) FROM js;
SELECT json_object_agg(b, id ORDER BY id), jsonb_object_agg(i8, 'v' ORDER BY id) FROM nums WHERE b IS NOT NULL AND i8 IS NOT NULL;
SELECT json_agg(j) FROM jo WHERE id = 9;
SELECT jsonb_agg(x ORDER BY x) FROM (VALUES (1.50), (2), (NULL), (-0.0)) v(x);
-- jsonb_object_agg without an ORDER BY that decides: a jsonb object keeps
-- one value per key (the last) and sorts its keys, so distinct keys are
-- answered in any order; a key given twice with values printing
-- differently is refused (refused before session 16 whatever the keys).
SELECT jsonb_object_agg(grp, n) FROM (SELECT grp, count(*) n FROM w GROUP BY grp) s WHERE grp IS NOT NULL;
SELECT jsonb_object_agg(id, x) FROM w;
SELECT grp, jsonb_object_agg(id::text, y) FROM w WHERE grp IS NOT NULL GROUP BY grp ORDER BY grp;
SELECT jsonb_object_agg(k::text, f) FROM w WHERE id IN (6, 7);
SELECT jsonb_object_agg(coalesce(grp, 'none'), id) FROM w /* refused: key a given with ids 1..5 */;
SELECT jsonb_object_agg(grp, id ORDER BY id) FROM w WHERE grp IS NOT NULL;
SELECT jsonb_object_agg(grp, id ORDER BY k) FROM w WHERE grp = 'b' /* refused: ids 6 and 7 tie on k = 1 */;
