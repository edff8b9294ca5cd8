-- Records as JSON (sql/builtin/jsonrecord.go): row_to_json, to_json,
-- to_jsonb, json_agg, jsonb_agg and json_build_object of a subquery's
-- or a table's whole row (a table's only as such an argument:
-- sql/plan/record.go tableRowConsumers), and of ROW(…).
SELECT row_to_json(n) FROM nums n;
SELECT row_to_json(n, true) FROM nums n WHERE id < 3;
SELECT to_json(n), to_jsonb(n) FROM nums n;
SELECT n.id, to_jsonb(n) - 'c' FROM nums n;
SELECT json_agg(n ORDER BY id), jsonb_agg(n ORDER BY id DESC) FROM nums n;
SELECT json_agg(n ORDER BY id) FILTER (WHERE id > 2) FROM nums n;
SELECT count(n), count(w) FROM nums n LEFT JOIN w ON w.id = n.id;
SELECT row_to_json(s) FROM (SELECT id, s, f, d, dt FROM nums) s;
SELECT row_to_json(s) FROM (SELECT id, ia, ta, na FROM arr) s;
SELECT row_to_json(s) FROM (SELECT id, j, t FROM js) s;
SELECT row_to_json(ROW(1, 'a'::text, NULL::int, ARRAY[1,2])), to_json(ROW(true, 1.50)), to_jsonb(ROW('x'::varchar, 2));
SELECT row_to_json(s) FROM (SELECT 1 AS a, 2 AS a) s;
SELECT to_jsonb(s) FROM (SELECT 1 AS a, 2 AS a) s;
SELECT json_build_object('row', n, 'id', n.id) FROM nums n;
SELECT jsonb_build_array(n, 1) FROM nums n;
SELECT row_to_json(s) FROM (SELECT id, ROW(id, grp) AS r FROM w) s;
SELECT row_to_json(s) FROM (SELECT id, ts, d, t FROM wd WHERE isfinite(ts)) s;
SELECT row_to_json(s) FROM (SELECT id, tz FROM ev) s;
SELECT json_agg(s ORDER BY id), jsonb_agg(tz ORDER BY id), json_object_agg(tz, id ORDER BY id) FILTER (WHERE tz IS NOT NULL) FROM (SELECT id, tz FROM ev) s;
SELECT grp, json_agg(w ORDER BY id) FROM w GROUP BY grp;
SELECT row_to_json(e) FROM ev e;
SELECT n FROM nums n /* refused: a table's whole row as a value of its composite type */;
SELECT row_to_json(n.*) FROM nums n;
