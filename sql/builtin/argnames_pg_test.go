package builtin_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// TestParamNamesMatchPgProc compares the parameter names and defaults
// named notation binds by (builtin.Registry.ParamLists) with pg_proc's
// proargnames and pg_get_function_arguments on the server's major, for
// every function of the library and every function the list knows: a
// list PostgreSQL declares that sidecar lacks would answer 42883 where
// PostgreSQL answers. Overloads over types sidecar does not have
// (unnest(tsvector)) are left out; VARIADIC ones must be refused.
func TestParamNamesMatchPgProc(t *testing.T) {
	conn := pgConn(t)
	reg := builtin.NewFor(types.Dialect{Version: pg.ServerVersion()})
	known, _ := builtin.ParamDecls("")
	names := append(reg.Names(), known...)
	names = append(names, "unnest", "generate_series", "generate_subscripts", "regexp_matches", "regexp_split_to_table", "jsonb_path_query",
		"json_each", "json_each_text", "jsonb_each", "jsonb_each_text", "json_array_elements", "json_array_elements_text",
		"jsonb_array_elements", "jsonb_array_elements_text", "json_object_keys", "jsonb_object_keys")
	slices.Sort(names)
	names = slices.Compact(names)
	rows, err := conn.Query(t.Context(), `SELECT proname, pg_get_function_arguments(oid) FROM pg_proc
		WHERE proname = ANY($1) AND proargnames IS NOT NULL AND NOT 'tsvector'::regtype = ANY(proargtypes::oid[]) ORDER BY 1, 2`, names)
	if err != nil {
		t.Fatal(err)
	}
	pgLists := map[string][]string{}
	variadic := map[string]bool{}
	for rows.Next() {
		var name, args string
		if err := rows.Scan(&name, &args); err != nil {
			t.Fatal(err)
		}
		var list []string
		for _, a := range strings.Split(args, ", ") {
			if strings.HasPrefix(a, "OUT ") {
				continue
			}
			if strings.HasPrefix(a, "VARIADIC ") {
				variadic[name] = true
			}
			n, rest, _ := strings.Cut(strings.TrimPrefix(a, "VARIADIC "), " ")
			if _, def, ok := strings.Cut(rest, " DEFAULT "); ok {
				n += "=" + def
			}
			list = append(list, strings.Trim(n, `"`))
		}
		pgLists[name] = append(pgLists[name], strings.Join(list, ","))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, name := range names {
		lists, err := reg.ParamLists(name)
		want := pgLists[name]
		slices.Sort(want)
		want = slices.Compact(want)
		if err != nil {
			if !variadic[name] {
				t.Errorf("%s: named notation refused (%v); PostgreSQL declares %q", name, err, want)
			}
			continue
		}
		var got []string
		for _, p := range lists {
			var parts []string
			for i, n := range p.Names {
				if d := i - (len(p.Names) - len(p.Defaults)); d >= 0 {
					n += "=" + p.Defaults[d]
				}
				parts = append(parts, n)
			}
			got = append(got, strings.Join(parts, ","))
		}
		slices.Sort(got)
		got = slices.Compact(got)
		compared++
		if !slices.Equal(got, want) {
			t.Errorf("%s: sidecar's parameter lists %q, PostgreSQL's %q", name, got, want)
		}
	}
	t.Logf("%d functions' parameter names compared with pg_proc, %d of them declare names", compared, len(pgLists))
}
