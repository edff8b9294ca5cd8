package sqlfront_test

import "testing"

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
	psqlRig(r).orRefused().same(t,
		"SELECT 'ok'::mood < 'happy'::mood",
		"SELECT NULL::mood",
		"SELECT '5'::posint",
		"SELECT id FROM ut WHERE m = 'ok'::mood",
		"SELECT CAST('ok' AS public.mood)",
	)
}
