package sqlfront_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// Issue 21 (wrong answers): information_schema.columns had no
// column_default (42703 where PostgreSQL answers: ORMs read it), and a
// catalog function's refusal said "is not supported" twice.
func TestInformationSchemaColumnDefault(t *testing.T) {
	r := catalogRig(t)
	compareWithPostgres(t, r.pgURL, r.sqlURL, []string{
		"SELECT table_name, column_name, column_default, is_nullable FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2",
		"SELECT column_name FROM information_schema.columns WHERE table_name = 'items' AND column_default IS NOT NULL ORDER BY 1",
	}, nil, "column_default")
	ctx := context.Background()
	c, err := pgconn.Connect(ctx, r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	// Under another search path the expressions may print otherwise: refused.
	_, err = c.Exec(ctx, "SET search_path = pg_catalog; SELECT column_default FROM information_schema.columns WHERE table_name = 'items'").ReadAll()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "0A000" {
		t.Errorf("column_default under search_path pg_catalog: %v, want 0A000", err)
	}
	_, err = c.Exec(ctx, "RESET search_path; SELECT has_table_privilege('accounts', 'SELECT')").ReadAll()
	if !errors.As(err, &pe) || pe.Code != "0A000" || strings.Count(pe.Message, "is not supported") != 1 {
		t.Errorf("has_table_privilege: %v, want 0A000 saying it once", err)
	}
}
