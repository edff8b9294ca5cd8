package sqlfront_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestVectorizedErrorHint: an error of the function library raised on
// sql/exec (at run time, or while binding a catalog query, whose
// errors are answered as they are) reaches the client as PostgreSQL
// sends it: SQLSTATE, message, DETAIL and HINT.
func TestVectorizedErrorHint(t *testing.T) {
	r := newRig(t, []string{"public.fa", "public.fb"}, recTables)
	ctx := context.Background()
	stmts := []string{
		"SELECT format('%', name) FROM (SELECT * FROM fa) s",
		"SELECT format('%z', name) FROM (SELECT * FROM fa) s WHERE id = 1",
		"SELECT upper(relname), upper(relname, 1) FROM pg_class",
		"SELECT length(relname, 1) FROM pg_class",
	}
	fields := func(err error) [4]string {
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			return [4]string{"no PostgreSQL error", ""}
		}
		return [4]string{pe.Code, pe.Message, pe.Detail, pe.Hint}
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheDescribe} {
		pgc := connectMode(t, r.pgURL, mode)
		scc := connectMode(t, r.sqlURL, mode)
		for _, q := range stmts {
			_, werr := rowsOf(ctx, pgc, q)
			_, gerr := rowsOf(ctx, scc, q)
			if want, got := fields(werr), fields(gerr); want != got {
				t.Errorf("mode %v: %s:\n PostgreSQL %q\n sidecar    %q", mode, q, want, got)
			}
			if fields(werr)[3] == "" {
				t.Errorf("mode %v: %s: PostgreSQL sent no HINT (the case tests nothing)", mode, q)
			}
		}
		pgc.Close(ctx)
		scc.Close(ctx)
	}
}
