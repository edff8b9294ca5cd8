package builtin_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// TestVolatilityMatchesPgProc compares each library overload's
// volatility and strictness with pg_proc's row of the same name and
// argument types. Both decide answers, not only speed: the planner folds
// an immutable call of constants while planning (so its error fails the
// statement though no row reaches it) and a strict call with a NULL
// constant argument to NULL. age(timestamp, timestamp) was marked
// stable: `SELECT date '2026-01-28' + age(timestamp 'infinity', …) FROM
// t WHERE false` answered no rows where PostgreSQL 15 fails with 22008
// (TestRandomQueries seed 201). Overloads of polymorphic or "any"
// arguments and variadic ones are compared where pg_proc has exactly
// those argument types. The library is built for the server's major
// (date_trunc(text, timestamptz, text) is immutable from 16).
func TestVolatilityMatchesPgProc(t *testing.T) {
	conn := pgConn(t)
	ctx := t.Context()
	rows, err := conn.Query(ctx, `SELECT proname, '{' || array_to_string(proargtypes::oid[], ',') || '}', provolatile::text, proisstrict FROM pg_proc WHERE prokind = 'f'`)
	if err != nil {
		t.Fatal(err)
	}
	type facts struct {
		vol    byte
		strict bool
	}
	pg := map[string]facts{}
	for rows.Next() {
		var name, args, vol string
		var strict bool
		if err := rows.Scan(&name, &args, &vol, &strict); err != nil {
			t.Fatal(err)
		}
		pg[name+args] = facts{vol[0], strict}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var version int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		t.Fatal(err)
	}
	reg := builtin.NewFor(types.Dialect{Version: version})
	var bad []string
	compared := 0
	for _, name := range reg.Names() {
		for _, f := range reg.Overloads(name) {
			args := make([]string, len(f.Args))
			for i, a := range f.Args {
				args[i] = fmt.Sprint(uint32(a))
			}
			p, ok := pg[name+"{"+strings.Join(args, ",")+"}"]
			if !ok {
				continue
			}
			compared++
			if byte(f.Volatility) != p.vol {
				bad = append(bad, fmt.Sprintf("%s: volatility %c, pg_proc %c", f.Signature(), f.Volatility, p.vol))
			}
			if f.Strict != p.strict {
				bad = append(bad, fmt.Sprintf("%s: strict %v, pg_proc %v", f.Signature(), f.Strict, p.strict))
			}
		}
	}
	slices.Sort(bad)
	for _, b := range bad {
		t.Error(b)
	}
	if compared < 250 {
		t.Errorf("only %d overloads compared with pg_proc: the key no longer matches", compared)
	}
	t.Logf("%d overloads compared with pg_proc, %d differ", compared, len(bad))
}
