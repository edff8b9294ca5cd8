package sqlfront_test

import "testing"

// TestExploreS23: statements of kinds the random generators do not make
// (character(n), numeric edge cases, to_char patterns, date arithmetic
// across a DST change, text[] functions, jsonb paths, string functions
// under collations), answered as PostgreSQL answers or refused (issue
// 21, session 23 exploration).
func TestExploreS23(t *testing.T) {
	r := newRig(t, []string{"public.ex"}, []string{
		"CREATE TABLE ex (id int PRIMARY KEY, c char(4), n numeric, tz timestamptz, ta text[], j jsonb, s text COLLATE \"C\", u text)",
		`INSERT INTO ex VALUES
			(1, 'ab', 1.005, '2024-03-10 01:30:00-05', '{a,b,c}', '{"a": {"b": [1, 2, {"c": "x"}]}, "n": 1.50}', 'Zeta', 'straße'),
			(2, 'a', -0.5, '2024-11-03 01:30:00-04', '{}', '{"a": null, "n": -0}', 'alpha', 'ÉCOLE'),
			(3, NULL, 'NaN', '2024-03-31 02:30:00+01', '{NULL,x}', '[1, "two", {"three": 3}]', 'beta', 'İstanbul'),
			(4, 'abcd', 12345678901234567890.123456789, 'infinity', '{"b c",d}', '{"n": 1e3, "s": "a\"b"}', 'Alpha', 'ǅemal'),
			(5, '  x', 0.000000001, '1999-12-31 23:59:59.999999+00', NULL, 'null', '', 'ﬁne'),
			(6, 'x  ', -1e-20, '2000-02-29 12:00:00+00', '{z,y,x}', '{"arr": []}', 'b', 'Ⅻ')`,
	})
	sameOrRefused(t, r.pgURL, r.sqlURL, []string{
		// character(n)
		"SELECT id, c, c || '|', length(c), octet_length(c), c = 'ab  ', c < 'ab' FROM ex ORDER BY id",
		"SELECT c, count(*) FROM ex GROUP BY c ORDER BY c",
		"SELECT id FROM ex WHERE c LIKE 'a%' ORDER BY id",
		"SELECT id, trim(c), rpad(c, 6, '*'), lpad(c, 6, '*'), c::varchar(2), c::char(2) FROM ex ORDER BY id",
		"SELECT max(c), min(c), string_agg(c, ',' ORDER BY id) FROM ex",
		// numeric edge cases
		"SELECT id, n, round(n, 2), trunc(n, 1), n * 0, n / 3, -n, abs(n), sign(n) FROM ex ORDER BY id",
		"SELECT id, n::float8, n::text, scale(n), ceil(n), floor(n) FROM ex ORDER BY id",
		"SELECT sum(n), avg(n), min(n), max(n) FROM ex",
		"SELECT id, n FROM ex ORDER BY n, id",
		"SELECT round(2.5), round(-2.5), round(0.5::numeric, 0), round(1.005, 2), 1e-20::numeric * 1e20, 0.1 + 0.2",
		"SELECT id, mod(n, 0.3), width_bucket(n, -1, 2, 3) FROM ex WHERE n <> 'NaN' ORDER BY id",
		"SELECT 'NaN'::numeric = 'NaN'::numeric, 'NaN'::numeric > 1e100, numeric '1.50' = 1.5, numeric '-0' = 0",
		// to_char
		"SELECT id, to_char(n, 'FM999999990.000'), to_char(n, '9.99EEEE') FROM ex WHERE n <> 'NaN' AND abs(n) < 1e10 ORDER BY id",
		"SELECT to_char(1234.5, 'L9G999D99'), to_char(-12, 'S999'), to_char(7, 'RN'), to_char(12, 'FM99th'), to_char(0.5, '0.9')",
		"SELECT id, to_char(tz AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US Dy Mon IW IYYY Q WW J') FROM ex ORDER BY id",
		"SELECT to_char(date '2024-02-29', 'FMDay, FMMonth DDth YYYY'), to_char(interval '1 day 02:03:04', 'HH24:MI:SS DD')",
		// dates across DST
		"SELECT id, (tz AT TIME ZONE 'America/New_York'), tz + interval '1 day', tz + interval '24 hours' FROM ex WHERE tz <> 'infinity' ORDER BY id",
		"SELECT timestamptz '2024-03-10 01:30:00 America/New_York' + interval '1 hour', timestamptz '2024-11-03 00:30:00-04' + interval '1 day'",
		"SELECT date '2024-03-10' + time '02:30', (date '2024-03-31' + interval '1 month')::date, date '2024-01-31' + interval '1 month'",
		"SELECT age(timestamp '2024-03-31', timestamp '2024-02-29'), timestamp '2024-03-10 12:00' - timestamp '2024-03-09 12:00'",
		"SELECT id, date_trunc('day', tz, 'America/New_York'), extract(epoch FROM tz) FROM ex WHERE tz <> 'infinity' ORDER BY id",
		// text[]
		"SELECT id, ta, array_length(ta, 1), cardinality(ta), array_to_string(ta, '-', '*'), ta[2], ta[1:2] FROM ex ORDER BY id",
		"SELECT id, array_position(ta, 'x'), array_remove(ta, 'b'), array_append(ta, 'q'), 'x' = ANY(ta), ta @> '{x}' FROM ex ORDER BY id",
		"SELECT id, array_cat(ta, '{k}'), array_replace(ta, 'a', 'A'), array_dims(ta), array_upper(ta, 1) FROM ex ORDER BY id",
		"SELECT id, string_to_array('a,b,,c', ','), string_to_array('a b', NULL), regexp_split_to_array('a1b22c', '[0-9]+') FROM ex WHERE id = 1",
		"SELECT id, unnest(ta) FROM ex ORDER BY id, 2",
		// jsonb paths
		"SELECT id, j -> 'a', j ->> 'n', j #> '{a,b,2}', j #>> '{a,b,0}', j ? 'a', jsonb_typeof(j) FROM ex ORDER BY id",
		"SELECT id, jsonb_path_query_array(j, '$.a.b[*] ? (@ > 1)'), jsonb_path_exists(j, '$.n') FROM ex ORDER BY id",
		"SELECT id, j @> '{\"n\": 1.5}', j - 'a', jsonb_strip_nulls(j), jsonb_array_length(CASE WHEN jsonb_typeof(j) = 'array' THEN j END) FROM ex WHERE jsonb_typeof(j) IN ('object', 'array') ORDER BY id",
		"SELECT id, jsonb_path_query_first(j, '$.**.c'), j['n'], jsonb_set(j, '{n}', '2') FROM ex WHERE jsonb_typeof(j) = 'object' ORDER BY id",
		"SELECT id, (j ->> 'n')::numeric, j -> 'n' = '1.5', jsonb_pretty(j) FROM ex WHERE jsonb_typeof(j) = 'object' ORDER BY id",
		// string functions with collations
		"SELECT id, upper(u), lower(u), initcap(u), length(u), octet_length(u) FROM ex ORDER BY id",
		"SELECT s FROM ex ORDER BY s",
		"SELECT s FROM ex ORDER BY s COLLATE \"C\" DESC",
		"SELECT min(s), max(s), string_agg(s, '|' ORDER BY s) FROM ex",
		"SELECT id, s < 'b', s ILIKE 'a%', upper(s), s ~ '^[A-Z]', position('a' IN s) FROM ex ORDER BY id",
		"SELECT id, left(u, 2), right(u, 2), reverse(u), repeat(s, 2), split_part(u, 'a', 1), translate(u, 'aé', 'AE') FROM ex ORDER BY id",
		"SELECT id, lower(u COLLATE \"C\"), upper(u COLLATE \"C\"), u COLLATE \"C\" < 'm' FROM ex ORDER BY id",
		"SELECT id, concat_ws('/', c, s, u), format('%I %L %s', s, u, c), quote_literal(u), md5(u) FROM ex ORDER BY id",
		"SELECT id, ascii(u), chr(ascii(s || 'a')), to_hex(id * 255), encode(convert_to(u, 'UTF8'), 'hex') FROM ex ORDER BY id",
	}...)
}
