package history

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

func TestQuoteTable(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"plain", "public.accounts", `"public"."accounts"`},
		{"quoted mixed case", `public."Accounts"`, `"public"."Accounts"`},
		{"dot inside the quoted schema", `"a.b".c`, `"a.b"."c"`},
		{"dot and space in both parts", `"Mixed.Case"."Odd Name"`, `"Mixed.Case"."Odd Name"`},
		{"doubled quote", `s."x""; DROP TABLE y; --"`, `"s"."x""; DROP TABLE y; --"`},
		{"legacy key: mixed case unquoted, taken literally", "public.Accounts", `"public"."Accounts"`},
		{"legacy key: space unquoted, split at the first dot", "Sales.Order Items", `"Sales"."Order Items"`},
		{"legacy key: quote unquoted", `public.My"T`, `"public"."My""T"`},
	}
	for _, tc := range cases {
		if got := QuoteTable(tc.in); got != tc.want {
			t.Errorf("%s: QuoteTable(%s) = %s, want %s", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestQuoteTableOfEveryKey: for the key the mirror gives any table
// (Relation.QualifiedName), QuoteTable names that same table in SQL.
func TestQuoteTableOfEveryKey(t *testing.T) {
	t.Parallel()
	parts := []string{"public", "a", "A", "a.b", `a"b`, "x y", "été", "t$1", "1t", `.`, `"`, `""."`}
	for _, s := range parts {
		for _, n := range parts {
			rel := &wal.Relation{Schema: s, Name: n}
			want := wal.QuoteIdent(s) + "." + wal.QuoteIdent(n)
			if got := QuoteTable(rel.QualifiedName()); got != want {
				t.Errorf("QuoteTable(%s) = %s, want %s", rel.QualifiedName(), got, want)
			}
		}
	}
}

// TestSQLWriterQuotesCanonicalName: a patch for a table whose schema holds
// a dot names that table, not schema "Mixed" and table "Case"."Odd Name".
func TestSQLWriterQuotesCanonicalName(t *testing.T) {
	t.Parallel()
	rel := &wal.Relation{Schema: "Mixed.Case", Name: "Odd Name"}
	var buf bytes.Buffer
	w := NewSQLWriter(&buf)
	one := "1"
	cols := []Column{{Name: "id", Type: "int8", Key: true}}
	for _, e := range []*Event{
		{Type: EventTable, Table: rel.QualifiedName(), Columns: cols},
		{Type: EventRow, Table: rel.QualifiedName(), Op: OpAdded, Key: &Row{Names: []string{"id"}, Values: []*string{&one}},
			To: &Row{Names: []string{"id"}, Values: []*string{&one}}},
	} {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `INSERT INTO "Mixed.Case"."Odd Name"`) {
		t.Errorf("patch does not insert into \"Mixed.Case\".\"Odd Name\":\n%s", buf.String())
	}
}
