package sqlfront_test

import "testing"

// TestWholeRowJSON: a table's name as a value (its whole row) is
// answered as the argument of the JSON conversions and count, through
// psql (the simple protocol) and with a session zone, and refused with
// 0A000 elsewhere — it was 42703 "column does not exist" on the flat
// planner, where PostgreSQL answers. Mixed date/timestamp arithmetic
// (timestamp - date, date + time) is answered too (it was refused).
func TestWholeRowJSON(t *testing.T) {
	r := newRig(t, []string{"public.dept", "public.emp"}, []string{
		"CREATE TABLE dept (id int PRIMARY KEY, name text NOT NULL, budget numeric, parent int)",
		"INSERT INTO dept VALUES (1, 'Eng', 1000000.50, NULL), (2, 'Sales \"EU\"', 250000, NULL), (3, 'Über', NULL, 1)",
		"CREATE TABLE emp (id int PRIMARY KEY, dept_id int, hired date, seen timestamp, at timestamptz, photo bytea, skills text[])",
		"INSERT INTO emp SELECT i, 1 + i % 3, date '2020-01-01' + i * 40, timestamp '2024-01-01 08:00' + i * interval '7 hours', timestamptz '2024-03-30 22:00+00' + i * interval '5 hours', decode(lpad(to_hex(i), 4, '0'), 'hex'), CASE WHEN i % 3 = 0 THEN NULL ELSE ARRAY['go', 'sql'] END FROM generate_series(1, 12) i",
	})
	same := []string{
		"SELECT row_to_json(d) FROM dept d ORDER BY id",
		"SELECT row_to_json(dept) FROM dept ORDER BY id",
		"SELECT to_jsonb(d), to_json(d.*) FROM dept d ORDER BY id",
		"SELECT json_agg(d ORDER BY id), jsonb_agg(d ORDER BY name) FROM dept d",
		"SELECT d.name, json_agg(e ORDER BY e.id) FROM dept d JOIN emp e ON e.dept_id = d.id GROUP BY d.name ORDER BY 1",
		"SELECT count(d) FROM dept d",
		"SELECT json_build_object('dept', d, 'n', 1) FROM dept d ORDER BY id",
		"SELECT s.id, row_to_json(s) FROM (SELECT e.id, e.photo, e.skills, e.at FROM emp e) s ORDER BY 1",
		"SET TimeZone = 'Asia/Kolkata'; SELECT d.name, json_agg(e ORDER BY e.id), jsonb_agg(e.at ORDER BY e.id), json_object_agg(e.at, e.id ORDER BY e.id) FROM dept d JOIN emp e ON e.dept_id = d.id GROUP BY d.name ORDER BY 1",
		"SET TimeZone = 'Europe/Berlin'; SELECT row_to_json(e) FROM emp e ORDER BY id",
		"SELECT seen - hired, hired - seen, at - hired, hired + time '10:30', time '01:00' + hired, seen + time '02:00', interval '1 day' + hired, 3 + hired FROM emp ORDER BY id",
		"SET TimeZone = 'America/New_York'; SELECT at - hired, hired - at FROM emp ORDER BY id",
	}
	refused := []string{
		"SELECT d FROM dept d ORDER BY id",
		"SELECT d.* IS NULL, row_to_json(d) FROM dept d ORDER BY id",
	}
	zoned := *r
	zoned.sqlURL = tzServe(t, r) // named zones checked against the server, as the daemon does
	catalogCompare(t, &zoned, same, refused)
}
