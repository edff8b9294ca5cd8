package pgident

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
)

// seedFlag replays a failing random test: go test ./internal/pgident -run X -seed N.
var seedFlag = seed.Flag()

func TestParseTable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		want     Table
	}{
		{"bare name is in public", "accounts", Table{"public", "accounts"}},
		{"schema and table", "app.orders", Table{"app", "orders"}},
		{"unquoted parts fold to lower case", "App.Orders", Table{"app", "orders"}},
		{"quoted parts keep case and spaces", `"My Schema"."Order"`, Table{"My Schema", "Order"}},
		{"doubled quote is one quote", `s."we""ird"`, Table{"s", `we"ird`}},
		{"dot inside quotes is part of the name", `"a.b".c`, Table{"a.b", "c"}},
		{"quote and dot inside quotes", `s."a""b.c"`, Table{"s", `a"b.c`}},
		{"quoted bare table is in public", `"Order"`, Table{"public", "Order"}},
		{"surrounding space is ignored", " public.t ", Table{"public", "t"}},
		{"digits and dollar after the first letter", "t1.x$2", Table{"t1", "x$2"}},
		{"only A-Z fold, as in a UTF-8 database", "ÉTÉ.ÑAME", Table{"ÉtÉ", "Ñame"}},
		{"63 bytes is the limit", strings.Repeat("x", 63), Table{"public", strings.Repeat("x", 63)}},
	}
	for _, tc := range cases {
		got, err := ParseTable(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%s: ParseTable(%q) = %+v, %v; want %+v", tc.name, tc.in, got, err, tc.want)
		}
	}
}

func TestParseTableErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, mention string
	}{
		{"empty", "", "empty name"},
		{"only space", "   ", "empty name"},
		{"lone dot", ".", "not a valid identifier"},
		{"trailing dot", "a.", "ends with a dot"},
		{"leading dot", ".t", "not a valid identifier"},
		{"three parts", "a.b.c", "3 dotted parts"},
		{"lone quote", `"`, "unterminated"},
		{"unterminated", `"unterminated`, "unterminated"},
		{"empty quoted", `""`, "empty quoted identifier"},
		{"empty quoted table", `s.""`, "empty quoted identifier"},
		{"text after quotes", `"a"b`, "unexpected"},
		{"leading digit", "1abc", "not a plain identifier"},
		{"space needs quotes", "a b", "not a plain identifier"},
		{"dash needs quotes", "ord-ers", `"ord-ers" is not a valid identifier`},
		{"injection", "x'); DROP TABLE y; --", "not a plain identifier"},
		{"NUL inside quotes", "s.\"a\x00b\"", "NUL byte"},
		{"NUL unquoted", "s.a\x00b", "not a valid identifier"},
		{"64 bytes", strings.Repeat("x", 64), "longer than 63 bytes"},
		{"64 bytes quoted", `s."` + strings.Repeat("X", 64) + `"`, "longer than 63 bytes"},
	}
	for _, tc := range cases {
		got, err := ParseTable(tc.in)
		if err == nil {
			t.Errorf("%s: ParseTable(%q) = %+v, accepted", tc.name, tc.in, got)
			continue
		}
		if !strings.Contains(err.Error(), tc.mention) || !strings.Contains(err.Error(), "table ") {
			t.Errorf("%s: ParseTable(%q): %v, want the table and %q", tc.name, tc.in, err, tc.mention)
		}
	}
}

func TestString(t *testing.T) {
	t.Parallel()
	cases := map[Table]string{
		{"public", "orders"}:     "public.orders",
		{"Sales", "Order Items"}: `"Sales"."Order Items"`,
		{"My Schema", `a"b`}:     `"My Schema"."a""b"`,
		{"a.b", "c"}:             `"a.b".c`,
		{"s", "1abc"}:            `s."1abc"`,
		{"s", "x$1_"}:            "s.x$1_",
		{"s", "été"}:             `s."été"`,
		{"s", ""}:                `s.""`,
	}
	for tbl, want := range cases {
		if got := tbl.String(); got != want {
			t.Errorf("%+v.String() = %s, want %s", tbl, got, want)
		}
	}
}

// TestRoundTrip checks, over random names drawn from an alphabet rich in the
// characters that matter (quotes, dots, case, digits, space, non-ASCII),
// that String prints every table so that ParseTable reads the same table back.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 0))
	alphabet := []string{"a", "z", "A", "Q", "_", "$", "0", "9", ".", `"`, " ", "-", "é", "'"}
	ident := func() string {
		var b strings.Builder
		for n := 1 + rng.IntN(8); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 5000 {
		want := Table{Schema: ident(), Name: ident()}
		got, err := ParseTable(want.String())
		if err != nil || got != want {
			t.Fatalf("seed %d: ParseTable(%s) = %+v, %v; want %+v", seed, want, got, err, want)
		}
	}
}

func FuzzParseTable(f *testing.F) {
	for _, s := range []string{"accounts", `"My Schema"."Order"`, `s."a""b.c"`, "a.b.c", `"`, "App.Orders"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tbl, err := ParseTable(s)
		if err != nil {
			return
		}
		if tbl.Schema == "" || tbl.Name == "" || len(tbl.Schema) > MaxLen || len(tbl.Name) > MaxLen {
			t.Fatalf("ParseTable(%q) = %+v: empty or overlong part accepted", s, tbl)
		}
		if strings.ContainsRune(tbl.Schema+tbl.Name, 0) {
			t.Fatalf("ParseTable(%q) = %+v: NUL accepted", s, tbl)
		}
		again, err := ParseTable(tbl.String())
		if err != nil || again != tbl {
			t.Fatalf("ParseTable(%q) = %+v prints as %s, which reads back as %+v, %v", s, tbl, tbl, again, err)
		}
	})
}
