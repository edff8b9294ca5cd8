package builtin_test

import (
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/sql/builtin"
)

// TestCaseMappingMatchesGlibc compares lower, upper and initcap of every
// code point 0x80–0x10FFFF (surrogates aside; initcap as 'a' || c || 'a',
// which shows whether c is a word character) and of mixed phrases with
// the live server: under the database default "C" (ASCII letters only)
// and under the en_US.utf8 collation (glibc's towlower/towupper/
// iswalnum), answered by builtin.CaseC and builtin.CaseLibc. Refused
// code points are counted; any difference fails. Before, every
// non-ASCII argument was refused.
func TestCaseMappingMatchesGlibc(t *testing.T) {
	conn := pgConn(t)
	ctx := t.Context()
	var version string
	if err := conn.QueryRow(ctx, `SELECT collversion FROM pg_collation WHERE collname = 'en_US.utf8'`).Scan(&version); err != nil {
		t.Skipf("no en_US.utf8 collation on the server: %v", err)
	}
	libc := builtin.CaseLibc("en_US.utf8", version)
	if libc == nil {
		t.Fatalf("the server's glibc is %s; sidecar's mapping was verified against %s: measure it again", version, builtin.VerifiedGlibc)
	}
	phrases := []string{"élan vital ǆemal", "ÉÀ Straße İI", "ΣΊΣΥΦΟΣ ὈΔΥΣΣΕΎΣ", "ǅungla ǈ", "ﬀ ﬁne", "hello-wörld_ok 3rd", "Ⅻ ⓐⓑ", "ǰ ΐ ẞ ß", "日本語 テキスト", "x\u0301y ąę", "𐐨𐐐 𝔄"}
	for _, coll := range []struct {
		name string
		m    *builtin.CaseMap
	}{{"C", builtin.CaseC}, {"en_US.utf8", libc}} {
		q := `SELECT cp, lower(c), upper(c), initcap('a' || c || 'a') FROM (SELECT cp, chr(cp) COLLATE "` + coll.name + `" AS c
			FROM generate_series(128, 1114111) cp WHERE cp NOT BETWEEN 55296 AND 57343) s
			UNION ALL SELECT -1, lower(p), upper(p), initcap(p) FROM (SELECT unnest($1::text[]) COLLATE "` + coll.name + `" AS p) s`
		rows, err := conn.Query(ctx, q, phrases)
		if err != nil {
			t.Fatal(err)
		}
		n, bad, refused := 0, 0, 0
		pi := 0
		for rows.Next() {
			var cp int
			var lo, up, ic string
			if err := rows.Scan(&cp, &lo, &up, &ic); err != nil {
				t.Fatal(err)
			}
			var in, icIn string
			if cp >= 0 {
				in = string(rune(cp))
				icIn = "a" + in + "a"
			} else {
				in, icIn = phrases[pi], phrases[pi]
				pi++
			}
			for _, c := range []struct {
				fn   func(string) (string, error)
				arg  string
				want string
				name string
			}{{coll.m.Lower, in, lo, "lower"}, {coll.m.Upper, in, up, "upper"}, {coll.m.Initcap, icIn, ic, "initcap"}} {
				n++
				got, err := c.fn(c.arg)
				switch {
				case err != nil && strings.Contains(err.Error(), "sidecar does not support"):
					refused++
				case err != nil || got != c.want:
					if bad++; bad <= 20 {
						t.Errorf("%s(%q COLLATE %q): PostgreSQL %q, sidecar %q (%v)", c.name, c.arg, coll.name, c.want, got, err)
					}
				}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		t.Logf("COLLATE %q: %d calls compared, %d refused, %d differ", coll.name, n, refused, bad)
	}
}
