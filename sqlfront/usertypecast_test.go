package sqlfront_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestCastToUserTypeRefused: a cast to a type of the source database's
// own (an enum, a domain) or an extension's was answered 42704 "type
// \"mood\" does not exist" by the flat planner where PostgreSQL has the
// type and answers; it is refused 0A000 naming the type now (as
// sql/plan's parseType does), never claimed missing.
func TestCastToUserTypeRefused(t *testing.T) {
	r := newRig(t, []string{"public.ut"}, []string{
		"CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
		"CREATE DOMAIN posint AS int CHECK (VALUE > 0)",
		"CREATE TABLE ut (id int PRIMARY KEY, m mood, p posint)",
		"INSERT INTO ut VALUES (1, 'ok', 3), (2, 'happy', 4)",
	})
	ctx := context.Background()
	conn := connectMode(t, r.sqlURL, pgx.QueryExecModeSimpleProtocol)
	defer conn.Close(ctx)
	pg := connectMode(t, r.pgURL, pgx.QueryExecModeSimpleProtocol)
	defer pg.Close(ctx)
	for _, q := range []string{
		"SELECT 'ok'::mood < 'happy'::mood",
		"SELECT NULL::mood",
		"SELECT '5'::posint",
		"SELECT id FROM ut WHERE m = 'ok'::mood",
		"SELECT CAST('ok' AS public.mood)",
	} {
		if _, err := pg.Exec(ctx, q); err != nil {
			t.Fatalf("%s on PostgreSQL: %v", q, err)
		}
		if _, err := conn.Exec(ctx, q); err != nil && pgCode(err) != "0A000" {
			t.Errorf("%s: %v, want PostgreSQL's answer or 0A000 (PostgreSQL has the type)", q, err)
		}
	}
}
