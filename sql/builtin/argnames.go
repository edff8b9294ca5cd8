package builtin

import "strings"

// Parameter names of the library's functions, as pg_proc.proargnames
// declares them (the input parameters), with the trailing parameters'
// defaults as pg_get_function_arguments prints them: what named
// notation (f(name => value)) binds by. A function's overloads each
// have their own list; the names PostgreSQL declares changed by major
// (random(min, max) from 17, the regexp functions' and
// json[b]_strip_nulls' from 18). TestParamNamesMatchPgProc compares the
// lists with pg_proc on each major.

// Params is one overload's parameter names; Defaults are the last
// len(Defaults) parameters' default expressions (SQL text).
type Params struct {
	Names    []string
	Defaults []string
}

// paramDecl is a list and the server_version_num that declares it
// first; refuse names why named notation is refused for it (its
// VARIADIC parameter).
type paramDecl struct {
	since  int
	decl   string
	refuse string
}

// paramDecls are the lists in pg_get_function_arguments' form: "name"
// or "name=default" per parameter, separated by commas.
var paramDecls = map[string][]paramDecl{
	"make_date":        {{decl: "year,month,day"}},
	"make_time":        {{decl: "hour,min,sec"}},
	"make_timestamp":   {{decl: "year,month,mday,hour,min,sec"}},
	"make_timestamptz": {{decl: "year,month,mday,hour,min,sec"}, {decl: "year,month,mday,hour,min,sec,timezone"}},
	"make_interval":    {{decl: "years=0,months=0,weeks=0,days=0,hours=0,mins=0,secs=0.0"}},

	"json_array_element":        {{decl: "from_json,element_index"}},
	"json_array_element_text":   {{decl: "from_json,element_index"}},
	"jsonb_array_element":       {{decl: "from_json,element_index"}},
	"jsonb_array_element_text":  {{decl: "from_json,element_index"}},
	"json_object_field":         {{decl: "from_json,field_name"}},
	"json_object_field_text":    {{decl: "from_json,field_name"}},
	"jsonb_object_field":        {{decl: "from_json,field_name"}},
	"jsonb_object_field_text":   {{decl: "from_json,field_name"}},
	"json_extract_path":         {{decl: "from_json,path_elems", refuse: "named arguments of json_extract_path (a VARIADIC parameter)"}},
	"json_extract_path_text":    {{decl: "from_json,path_elems", refuse: "named arguments of json_extract_path_text (a VARIADIC parameter)"}},
	"jsonb_extract_path":        {{decl: "from_json,path_elems", refuse: "named arguments of jsonb_extract_path (a VARIADIC parameter)"}},
	"jsonb_extract_path_text":   {{decl: "from_json,path_elems", refuse: "named arguments of jsonb_extract_path_text (a VARIADIC parameter)"}},
	"jsonb_delete":              {{decl: "from_json,path_elems", refuse: "named arguments of jsonb_delete (a VARIADIC parameter)"}},
	"jsonb_insert":              {{decl: "jsonb_in,path,replacement,insert_after=false"}},
	"jsonb_set":                 {{decl: "jsonb_in,path,replacement,create_if_missing=true"}},
	"json_strip_nulls":          {{since: 180000, decl: "target,strip_in_arrays=false"}},
	"jsonb_strip_nulls":         {{since: 180000, decl: "target,strip_in_arrays=false"}},
	"jsonb_path_exists":         {{decl: jsonPathParams}},
	"jsonb_path_match":          {{decl: jsonPathParams}},
	"jsonb_path_query":          {{decl: jsonPathParams}},
	"jsonb_path_query_array":    {{decl: jsonPathParams}},
	"jsonb_path_query_first":    {{decl: jsonPathParams}},
	"json_each":                 {{decl: "from_json"}},
	"json_each_text":            {{decl: "from_json"}},
	"jsonb_each":                {{decl: "from_json"}},
	"jsonb_each_text":           {{decl: "from_json"}},
	"json_array_elements":       {{decl: "from_json"}},
	"json_array_elements_text":  {{decl: "from_json"}},
	"jsonb_array_elements":      {{decl: "from_json"}},
	"jsonb_array_elements_text": {{decl: "from_json"}},

	"random": {{since: 170000, decl: "min,max"}},

	"regexp_count":          regexpParams("start", "flags"),
	"regexp_instr":          regexpParams("start", "N", "endoption", "flags", "subexpr"),
	"regexp_like":           regexpParams("flags"),
	"regexp_match":          regexpParams("flags"),
	"regexp_matches":        regexpParams("flags"),
	"regexp_split_to_array": regexpParams("flags"),
	"regexp_split_to_table": regexpParams("flags"),
	"regexp_substr":         regexpParams("start", "N", "flags", "subexpr"),
	"regexp_replace": {{since: 180000, decl: "string,pattern,replacement"}, {since: 180000, decl: "string,pattern,replacement,flags"},
		{since: 180000, decl: "string,pattern,replacement,start"}, {since: 180000, decl: "string,pattern,replacement,start,N"},
		{since: 180000, decl: "string,pattern,replacement,start,N,flags"}},
}

const jsonPathParams = "target,path,vars='{}'::jsonb,silent=false"

// regexpParams are PostgreSQL 18's lists of a regexp function: string,
// pattern, then each prefix of more.
func regexpParams(more ...string) []paramDecl {
	out := []paramDecl{{since: 180000, decl: "string,pattern"}}
	for i := range more {
		out = append(out, paramDecl{since: 180000, decl: "string,pattern," + strings.Join(more[:i+1], ",")})
	}
	return out
}

// ParamLists are the parameter lists of name's overloads that declare
// names on the registry's major (none: named notation finds no
// function, 42883). With the major unknown, a function whose lists
// differ among majors is refused, and so is one whose named notation
// sidecar does not bind.
func (r *Registry) ParamLists(name string) ([]Params, error) {
	var out []Params
	for _, d := range paramDecls[name] {
		if d.refuse != "" {
			return nil, unsupported("%s", d.refuse)
		}
		if d.since > 140000 {
			yes, known := r.atLeast(d.since)
			if !known {
				return nil, unsupported("named arguments of %s when the server's major is not known (its parameter names differ among majors)", name)
			}
			if !yes {
				continue
			}
		}
		var p Params
		for _, f := range strings.Split(d.decl, ",") {
			n, def, ok := strings.Cut(f, "=")
			p.Names = append(p.Names, n)
			if ok {
				p.Defaults = append(p.Defaults, def)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// ParamDecls says whether the library knows name's parameter names on
// some major, and lists the functions it knows them of (for tests).
func ParamDecls(name string) (all []string, known bool) {
	for n := range paramDecls {
		all = append(all, n)
	}
	_, known = paramDecls[name]
	return all, known
}
