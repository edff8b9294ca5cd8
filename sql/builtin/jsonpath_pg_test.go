package builtin_test

import "testing"

// jsonpathTargets and jsonpathPaths are documents and paths of the
// subset types.ParseJSONPath reads: accessors in lax and strict mode,
// filters, predicates, arithmetic, methods, variables, and the errors
// each mode raises.
var (
	jsonpathTargets = vals("jsonb", `{"a":{"b":[1,2,3]}}`, `{"a":[{"x":1},{"x":2},{"x":"3"},{"y":null}]}`, `[1,"a",null,true,[2,3],{"k":-1.5}]`,
		`{"a":"abc","b":"Abd\ncd","c":[]}`, `5`, `"str"`, `null`, `{}`, `[]`, `{"a":[[1,2],[3]],"b":{"c":{"d":0}}}`)
	jsonpathPaths = vals("jsonpath", `$`, `$.a`, `$.a.b`, `$.a.b[*]`, `$.a.b[1]`, `$.a.b[last]`, `$.a.b[last - 1]`, `$.a.b[0 to 1]`,
		`$.a.b[5]`, `$.a.b[-1]`, `$.a.b[1.7]`, `$.a[*].x`, `$.a.x`, `strict $.a.x`, `strict $.a[*].x`, `strict $.b`, `lax $.b`, `$.*`, `$[*]`,
		`strict $[*]`, `strict $.*`, `$.a[*] ? (@.x > 1)`, `$.a[*] ? (@.x > 1).x`, `$.a ? (@.x >= 1 && @.x < 3)`, `$.a[*] ? (@.x == "3")`,
		`$.a[*] ? (@.y == null)`, `$.a[*] ? (@.x != 1)`, `$.a[*] ? (@.x <> 2 || @.y == null)`, `$[*] ? (@ == true)`, `$[*] ? (@ > 0)`,
		`$[*] ? (@ < "b")`, `$[*].type()`, `$.type()`, `$.size()`, `strict $.size()`, `$.a.size()`, `$.a.b.size()`, `$[*].size()`,
		`$[*] + 1`, `$.a.b[*] * 2`, `$.a.b[0] * 2 + 1`, `$.a.b[1] / 3`, `$.a.b[0] / 0`, `$.a.b[2] % 2`, `-$.a.b[*]`, `+$.a.b`, `-$`,
		`$.a.b[*].abs()`, `$[*].k.floor()`, `$[*].k.ceiling()`, `$.k.abs()`, `$[*] ? (@.k.abs() > 1)`, `$.a[*] ? (exists (@.x))`,
		`$.a[*] ? (!exists (@.x))`, `$.a[*] ? ((@.x > 1) is unknown)`, `$.a[*] ? (!(@.x > 1))`, `$.a ? (@ like_regex "^a.c$")`,
		`$.b ? (@ like_regex "^c" flag "m")`, `$.b ? (@ like_regex "d.c")`, `$.b ? (@ like_regex "d.c" flag "s")`,
		`$.a ? (@ like_regex "B" flag "i")`, `$.a ? (@ starts with "ab")`, `$.* ? (@ starts with "A")`, `$.a.b[*] > 2`, `$.a.b[*] > 5`,
		`$.a > 1`, `$.nope == 1`, `$.a.b[0] == 1`, `strict $.a.b[*] > 2`, `exists($.a)`, `1 + 2 * 3`, `(1 + 2) * 3`, `"x"`, `true`, `null`,
		`$.a.b[$.a.b[0]]`, `$.b.c.d`, `$.a[*][*]`, `$.a[0][1]`, `strict $.a[1][1]`, `$.b.*.*`, `$[0 to last]`, `$[last]`, `strict $[9]`,
		`$.c.size()`, `$.abs()`, `$.a.abs()`, `-$[*]`, `$.a + 1`, `$.a + $.b`, `$.a.b + 1`, `$.a.b[*] ? (@ > 1) ? (@ < 3)`, `$.x ? (@ > $min)`, `$ ? (@.a.b[0] == $one)`)
)

// TestJSONPathMatchesPostgres compares jsonb_path_query_array,
// jsonb_path_exists and jsonb_path_match (silent and not) with
// PostgreSQL over every document and path. Before, every call was
// refused (0A000).
func TestJSONPathMatchesPostgres(t *testing.T) {
	vars := vals("jsonb", `{"min":1,"one":1}`)
	var cases []call
	cases = append(cases, cross("jsonb_path_query_array", jsonpathTargets, jsonpathPaths, vars)...)
	cases = append(cases, cross("jsonb_path_query_array", jsonpathTargets, jsonpathPaths, vars, vals("bool", "true"))...)
	cases = append(cases, cross("jsonb_path_exists", jsonpathTargets, jsonpathPaths, vars)...)
	cases = append(cases, cross("jsonb_path_exists", jsonpathTargets, jsonpathPaths, vars, vals("bool", "true"))...)
	cases = append(cases, cross("jsonb_path_match", jsonpathTargets, jsonpathPaths, vars)...)
	cases = append(cases, cross("jsonb_path_match", jsonpathTargets, jsonpathPaths, vars, vals("bool", "true"))...)
	cases = append(cases, cross("jsonb_path_query_first", jsonpathTargets, jsonpathPaths, vars)...)
	cases = append(cases, cross("jsonb_path_query_first", jsonpathTargets, vals("jsonpath", `$.x ? (@ > $min)`))...)
	cases = append(cases, cross("jsonb_path_exists", jsonpathTargets, vals("jsonpath", `$.a`), vals("jsonb", `[1]`, `1`))...)
	runDifferential(t, cases)
	noRefusals(t, cross("jsonb_path_query_array", jsonpathTargets, vals("jsonpath", `$.a.b[*]`, `$.a[*] ? (@.x > 1).x`, `strict $.a.x`, `$[*].type()`), vars))
}

// TestJSONPathMethodsMatchPostgres compares .** (lax and strict, with
// levels), .keyvalue(), .double() and PostgreSQL 17's .bigint()
// .boolean() .decimal() .integer() .number() .string() (a syntax error
// before 17) with PostgreSQL. Before, every such path was refused
// (0A000) at input.
func TestJSONPathMethodsMatchPostgres(t *testing.T) {
	targets := vals("jsonb", `{"a":{"b":[1,{"c":2}]},"d":3}`, `[1,[2,[3,{"x":4}]],"5"]`, `{"k":"1.5","i":"42","b":"true","n":null,"t":true,"f":1.5,"big":1e20}`,
		`["1.5", "abc", "  7 ", "0x1F", "1_000", "1e3", "-0", "nan", "inf", "yes", "off", "t", "TRUE", " true", "", "12345678901", 2.5, -2.5, 0, 1, 3.5, 1e400, true, false, null, {}, []]`,
		`5`, `"str"`, `null`, `{}`, `[]`, `{"a":{"a":{"a":1}},"b":[{"a":2}]}`, `{"x":[{"y":1},{"y":"2"}],"z":{"y":[3]}}`)
	paths := vals("jsonpath", `$.**`, `lax $.**`, `strict $.**`, `$.**{0}`, `$.**{1}`, `$.**{2}`, `$.**{last}`, `$.**{1 to 2}`,
		`$.**{2 to last}`, `$.**{last to 1}`, `$.**{3 to 1}`, `$.**.a`, `strict $.**.a`, `$.**{1}.a`, `$.**.y`, `strict $.**.y`, `$.**[*]`,
		`strict $.**[*]`, `strict $.**[0]`, `strict $.**[9]`, `$.**.size()`, `strict $.**.size()`, `$.** ? (@ > 1)`, `strict $.** ? (@.a == 1)`,
		`$.**.type()`, `$.**.abs()`, `strict $.**.*`, `$.**{0 to 1}.**{1}`, `$.a.**`, `$.x[*].**`,
		`$.keyvalue()`, `strict $.keyvalue()`, `$.keyvalue().key`, `$.keyvalue().value`, `$.keyvalue() ? (@.value > 1)`, `$.a.keyvalue()`,
		`$[*].double()`, `strict $[*].double()`, `$.f.double()`, `$.k.double()`, `$.big.double()`, `$.double()`, `$.n.double()`, `$.*.double()`,
		`$[*].bigint()`, `$[*].integer()`, `$[*].boolean()`, `$[*].number()`, `$[*].decimal()`, `$[*].string()`, `$.i.bigint() + 1`,
		`$.*.string()`, `$.t.string()`, `$.b.boolean()`, `$.k.number()`, `$.f.integer()`, `$.big.integer()`, `$.big.bigint()`, `$.**.string()`,
		`$.string().type()`, `$.k.decimal().double()`, `strict $[*].string()`, `$ ? (@.string() == "5")`, `$.*.boolean()`)
	var cases []call
	cases = append(cases, cross("jsonb_path_query_array", targets, paths)...)
	cases = append(cases, cross("jsonb_path_query_array", targets, paths, vals("jsonb", `{}`), vals("bool", "true"))...)
	cases = append(cases, cross("jsonb_path_exists", targets, paths, vals("jsonb", `{}`), vals("bool", "true", "false"))...)
	cases = append(cases, cross("jsonb_path_query_first", targets, paths)...)
	runDifferential(t, cases)
	noRefusals(t, cross("jsonb_path_query_array", targets, vals("jsonpath", `$.**`, `strict $.**{2}`, `$.keyvalue()`, `$[*].double()`)))
}
