package sqlfront_test

import (
	"context"
	"testing"
)

// TestMinMaxArgumentTypes: min and max exist in PostgreSQL for some
// types only, and the set grows with the major (bytea, xid8, record
// from 18). Over a type PostgreSQL has no min/max for (uuid, boolean,
// jsonb on every major sidecar follows) the answer is PostgreSQL's
// 42883; over one it has and sidecar does not compute (arrays, bytea on
// 18) a refusal 0A000 — never an answer PostgreSQL would not give nor a
// "does not exist" for a function that exists. On 2f71b81 the flat path
// answered max(uuid) (PostgreSQL: 42883) and sql/exec said 42883 for
// max(text[]), which PostgreSQL answers. Text and binary results.
func TestMinMaxArgumentTypes(t *testing.T) {
	r := newRig(t, []string{"public.mm"}, []string{
		"CREATE TABLE mm (id int PRIMARY KEY, u uuid, b bool, ta text[], ia int[], by bytea, j jsonb, n int)",
		"INSERT INTO mm VALUES (1, '00000000-0000-0000-0000-000000000001', true, '{a,b}', '{1,2}', '\\x01', '{\"a\":1}', 1), " +
			"(2, 'ffffffff-0000-0000-0000-000000000002', false, '{b}', '{0,9}', '\\x0203', '[1]', 2), (3, NULL, NULL, NULL, NULL, NULL, NULL, 3)",
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	pgc, sc := conns["postgresql"], conns["sidecar"]
	for _, q := range []string{
		"SELECT max(u) FROM mm",
		"SELECT min(u) FROM mm WHERE id = 1",
		"SELECT id, max(u) FROM mm GROUP BY id ORDER BY id",
		"SELECT max(u) FROM mm m1 JOIN mm m2 USING (id)",
		"SELECT max(b) FROM mm",
		"SELECT min(j) FROM mm",
		"SELECT max(ta) FROM mm",
		"SELECT min(ia) FROM mm WHERE id < 3",
		"SELECT max(by) FROM mm",
		"SELECT min(by), max(n) FROM mm GROUP BY n ORDER BY n",
		"SELECT max(u::text), min(n) FROM mm",
	} {
		for _, f := range [][]int16{nil, {1}} {
			want := pgc.ExecParams(ctx, q, nil, nil, nil, f).Read()
			got := sc.ExecParams(ctx, q, nil, nil, nil, f).Read()
			if pgCode(got.Err) == "0A000" && (want.Err == nil || pgCode(want.Err) == "42883") {
				// A refusal where PostgreSQL answers is the promise's
				// floor; where it says 42883 the major lacks the
				// function: only an answer would be wrong.
				if want.Err == nil {
					t.Logf("refused: %s: %v", q, got.Err)
				}
				continue
			}
			sameResult(t, q, got, want)
		}
	}
}
