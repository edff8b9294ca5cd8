package wal

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
)

// seedFlag replays the random tests: go test -run X -seed=N.
var seedFlag = seed.Flag()

func TestParseTableName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, canonical, quoted string
		want                  TableName
	}{
		{"public.accounts", "public.accounts", `"public"."accounts"`, TableName{"public", "accounts"}},
		{"accounts", "public.accounts", `"public"."accounts"`, TableName{"public", "accounts"}},
		{"Public.Accounts", "public.accounts", `"public"."accounts"`, TableName{"public", "accounts"}},
		{`public."Accounts"`, `public."Accounts"`, `"public"."Accounts"`, TableName{"public", "Accounts"}},
		{`"a.b".c`, `"a.b".c`, `"a.b"."c"`, TableName{"a.b", "c"}},
		{`"Mixed.Case"."Odd Name"`, `"Mixed.Case"."Odd Name"`, `"Mixed.Case"."Odd Name"`, TableName{"Mixed.Case", "Odd Name"}},
		{`public."My""T"`, `public."My""T"`, `"public"."My""T"`, TableName{"public", `My"T`}},
		{`"Sales"."Order Items"`, `"Sales"."Order Items"`, `"Sales"."Order Items"`, TableName{"Sales", "Order Items"}},
	}
	for _, tc := range cases {
		got, err := ParseTableName(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseTableName(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		if s := got.String(); s != tc.canonical {
			t.Errorf("ParseTableName(%q).String() = %s, want %s", tc.in, s, tc.canonical)
		}
		if q := got.Quoted(); q != tc.quoted {
			t.Errorf("ParseTableName(%q).Quoted() = %s, want %s", tc.in, q, tc.quoted)
		}
	}
	for _, bad := range []string{"", ".t", "s.", "a.b.c", `public.My"T`, "Sales.Order Items", `"a.b.c`, `s."x` + "\x00" + `"`, "s." + strings.Repeat("x", 64)} {
		if tn, err := ParseTableName(bad); err == nil {
			t.Errorf("ParseTableName(%q) = %+v, accepted", bad, tn)
		} else if !strings.Contains(err.Error(), "invalid table") {
			t.Errorf("ParseTableName(%q): %v, want it to say which table is invalid", bad, err)
		}
	}
}

// TestTableNameKeyRoundTrip checks, over random names rich in the
// characters that break naive splitting (dots, quotes, case, space), that
// the mirror's key for a relation (QualifiedName) is TableName.String and
// splits back into the same schema and name: resync and status depend on it.
func TestTableNameKeyRoundTrip(t *testing.T) {
	t.Parallel()
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 7))
	alphabet := []string{"a", "z", "A", "_", "$", "0", ".", `"`, " ", "é", "'"}
	ident := func() string {
		var b strings.Builder
		for n := 1 + rng.IntN(6); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	keys := map[string]TableName{}
	for range 3000 {
		tn := TableName{Schema: ident(), Name: ident()}
		rel := &Relation{Schema: tn.Schema, Name: tn.Name}
		key := rel.QualifiedName()
		if key != tn.String() {
			t.Fatalf("seed %d: %+v: QualifiedName %s, String %s", seed, tn, key, tn)
		}
		back, err := ParseTableName(key)
		if err != nil || back != tn {
			t.Fatalf("seed %d: key %s of %+v reads back as %+v, %v", seed, key, tn, back, err)
		}
		if other, ok := keys[key]; ok && other != tn {
			t.Fatalf("seed %d: %+v and %+v share the key %s", seed, tn, other, key)
		}
		keys[key] = tn
	}
}

// TestTableNamePlainUnchanged pins the key of plain lower-case names: it is
// what mirrors written before names were quoted hold, so their data
// directories stay valid.
func TestTableNamePlainUnchanged(t *testing.T) {
	t.Parallel()
	for _, tn := range []TableName{{"public", "accounts"}, {"app", "order_items2"}, {"s$", "t_1$"}} {
		if got, want := tn.String(), tn.Schema+"."+tn.Name; got != want {
			t.Errorf("%+v.String() = %s, want %s", tn, got, want)
		}
	}
}

// BenchmarkQualifiedName: the mirror looks tables up by this key once per
// row change, so its cost is on the apply path.
func BenchmarkQualifiedName(b *testing.B) {
	for _, rel := range []*Relation{{Schema: "public", Name: "pgbench_accounts"}, {Schema: "Mixed.Case", Name: "Odd Name"}} {
		b.Run(rel.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = rel.QualifiedName()
			}
		})
	}
}
