package sqlfront_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestHostileInputsAnswerOrRefuse (issue 21, a hostile client): inputs
// that reached PostgreSQL's parser in C through cgo unchecked, or gave a
// value PostgreSQL refuses, are answered as PostgreSQL answers them or
// refused with a SQLSTATE, and the server answers the next statement.
// Before: a 2.8 MB statement of 150,000 UNION ALLs that mentions
// pg_catalog crashed the process (SIGSEGV in pg_query_fingerprint,
// which the psql-query lookup ran before the depth check); a regtype
// input of 50,000 `1+` crashed it in pg_query_parse's protobuf output
// (the regtype input parsed `SELECT NULL::<text>` unchecked); and
// 1e131071 * 1e131071 answered a numeric of 262,143 digits where
// PostgreSQL fails with 22003.
func TestHostileInputsAnswerOrRefuse(t *testing.T) {
	r := newRig(t, []string{"public.h"}, []string{
		"CREATE TABLE h (id int PRIMARY KEY, s text)",
		"INSERT INTO h SELECT g, 's' || g FROM generate_series(1, 50) g",
	})
	ctx := context.Background()
	sc, err := pgx.Connect(ctx, r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(ctx)
	ref, err := pgx.Connect(ctx, r.pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close(ctx)
	cases := []struct {
		name, q string
		same    bool // the same answer or SQLSTATE as PostgreSQL (else: refused, with any SQLSTATE, where PostgreSQL refuses)
	}{
		{"union all 150000 naming pg_catalog", "SELECT count(*) FROM (" + strings.Repeat("SELECT 1 UNION ALL ", 150000) + "SELECT 1) u, pg_catalog.pg_class", true},
		{"plus 60000 naming pg_catalog", "SELECT " + strings.Repeat("1+", 60000) + "1 FROM pg_catalog.pg_class", true},
		{"regtype of a deep text", "SELECT 'int, " + strings.Repeat("1+", 60000) + "1'::regtype", false},
		{"numeric product past the format", "SELECT 1e131071::numeric * 1e131071::numeric", true},
		{"numeric product just past", "SELECT 1e131071::numeric * 10", true},
		{"numeric product inside", "SELECT length((1e131071::numeric * 9.9)::text)", true},
		{"numeric sum past", "SELECT 9e131071::numeric + 9e131071::numeric", true},
		{"numeric sum inside", "SELECT length((5e131071::numeric + 4e131071::numeric)::text)", true},
		{"numeric difference past", "SELECT -9e131071::numeric - 9e131071::numeric", true},
		{"numeric quotient past", "SELECT 1e131071::numeric / 0.01", true},
		{"numeric quotient inside", "SELECT length((1e131071::numeric / 10)::text)", true},
		{"numeric product on the engine", "WITH x AS (SELECT 1e131071::numeric AS a) SELECT a * a FROM x", true},
		{"numeric product over a table", "SELECT count(*) FROM (SELECT 1e131071::numeric * id AS p FROM h) s WHERE p > 0", true},
		{"numeric sum past", "SELECT sum(9e131071::numeric) FROM h", true},
		{"numeric sum past on the engine", "WITH x AS (SELECT 9e131071::numeric AS a FROM h) SELECT sum(a) FROM x", true},
		{"numeric sum inside", "SELECT length(sum(1e131070::numeric)::text) FROM h", true},
	}
	for _, c := range cases {
		got, gerr := deepRowsText(ctx, sc, c.q)
		want, werr := deepRowsText(ctx, ref, c.q)
		if werr != nil && pgCode(werr) == "" {
			t.Fatalf("%s: PostgreSQL: %v", c.name, werr)
		}
		switch {
		case gerr != nil && pgCode(gerr) == "":
			t.Fatalf("%s: the connection failed: %.200v", c.name, gerr)
		case c.same && (pgCode(gerr) != pgCode(werr) || got != want):
			t.Errorf("%s: sidecar %.80q (%.200v), PostgreSQL %.80q (%.200v)", c.name, got, gerr, want, werr)
		case !c.same && (werr == nil || gerr == nil):
			t.Errorf("%s: sidecar %.80q (%.200v), PostgreSQL %.80q (%.200v): want both refused", c.name, got, gerr, want, werr)
		}
		if got, err := deepRowsText(ctx, sc, "SELECT count(*) FROM h"); err != nil || got != "50\n" {
			t.Fatalf("after %s: the next statement answered %q (%v)", c.name, got, err)
		}
	}
}
