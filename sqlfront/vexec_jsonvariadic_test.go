package sqlfront_test

import "testing"

// TestJSONBuildVariadic: json[b]_build_array and json[b]_build_object
// called with VARIADIC answer as PostgreSQL (jsonb.sql:348–374, refused
// 0A000 "VARIADIC in a call of jsonb_build_array" before): a NULL array
// gives NULL, an empty one [] or {}, a multidimensional array
// (PostgreSQL spreads it in storage order) is refused as every
// multidimensional array is, an odd number of elements fails 22023, a NULL key
// fails as the major does (json_build_object: 22004 from 16, 22023
// before; jsonb_build_object: 22023).
func TestJSONBuildVariadic(t *testing.T) {
	r := newRig(t, []string{"public.jv"}, []string{
		"CREATE TABLE jv (id int PRIMARY KEY, a text[], n int[])",
		"INSERT INTO jv VALUES (1, '{a,b}', '{1,2}'), (2, NULL, NULL), (3, '{}', '{}'), (4, '{x,NULL,y,z}', '{1,2,3,4}'), (5, '{k}', '{7}')",
	})
	var cases []diffCase
	for _, f := range []string{"jsonb", "json"} {
		cases = append(cases,
			diffCase{sql: "SELECT " + f + "_build_array(VARIADIC NULL::text[])"},
			diffCase{sql: "SELECT " + f + "_build_array(VARIADIC '{}'::text[])"},
			diffCase{sql: "SELECT " + f + "_build_array(VARIADIC '{a,b,c}'::text[])"},
			diffCase{sql: "SELECT " + f + "_build_array(VARIADIC ARRAY['a', NULL]::text[])"},
			diffCase{sql: "SELECT " + f + "_build_array(VARIADIC '{1,2,3,4}'::text[])"},
			diffCase{sql: "SELECT " + f + "_build_array(VARIADIC '{1,2,3,4}'::int[])"},
			// sidecar has no multidimensional arrays: refused.
			diffCase{sql: "SELECT " + f + "_build_array(VARIADIC '{{1,4},{2,5},{3,6}}'::int[][])", refuse: true},
			diffCase{sql: "SELECT " + f + "_build_array(VARIADIC ARRAY[ARRAY[1,4],ARRAY[2,5]])", refuse: true},
			diffCase{sql: "SELECT " + f + "_build_array(VARIADIC '{1.5,NULL,-2}'::numeric[])"},
			diffCase{sql: "SELECT " + f + "_build_object(VARIADIC NULL::text[])"},
			diffCase{sql: "SELECT " + f + "_build_object(VARIADIC '{}'::text[])"},
			diffCase{sql: "SELECT " + f + "_build_object(VARIADIC '{a,b,c}'::text[])"},
			diffCase{sql: "SELECT " + f + "_build_object(VARIADIC ARRAY['a', NULL]::text[])"},
			diffCase{sql: "SELECT " + f + "_build_object(VARIADIC ARRAY[NULL, 'a']::text[])"},
			diffCase{sql: "SELECT " + f + "_build_object(VARIADIC '{1,2,3,4}'::text[])"},
			diffCase{sql: "SELECT " + f + "_build_object(VARIADIC '{1,2,3,4}'::int[])"},
			diffCase{sql: "SELECT " + f + "_build_object(VARIADIC '{{1,4},{2,5},{3,6}}'::int[][])", refuse: true},
			diffCase{sql: "SELECT " + f + "_build_object(VARIADIC ARRAY[ARRAY[1,4],ARRAY[2,5]])", refuse: true},
			diffCase{sql: "SELECT id, " + f + "_build_array(VARIADIC a), " + f + "_build_array(VARIADIC n) FROM jv ORDER BY id"},
			diffCase{sql: "SELECT id, " + f + "_build_object(VARIADIC n) FROM jv WHERE id IN (1, 2, 3, 4) ORDER BY id"},
			diffCase{sql: "SELECT id, " + f + "_build_object(VARIADIC a) FROM jv WHERE id = 5"},
			// A NULL key: 22023 on 14 and 15 (and for jsonb), json's
			// 22004 from 16. The flat path's library does not know the
			// major: json's is refused there.
			diffCase{sql: "SELECT " + f + "_build_object(NULL, 'a')", refuse: f == "json"},
			diffCase{sql: "SELECT " + f + "_build_object('a', 1, NULL, 2)", refuse: f == "json"},
			diffCase{sql: "SELECT " + f + "_build_object(NULL)"},
			diffCase{sql: "SELECT " + f + "_build_object(NULL::text, s.id) FROM (SELECT * FROM jv) s WHERE s.id = 1"},
			diffCase{sql: "SELECT " + f + "_build_object('k', s.id, s.a[5], 2) FROM (SELECT * FROM jv) s WHERE s.id = 1"},
		)
	}
	diffVectorized(t, r, cases) // vexec_rec_test.go
}
