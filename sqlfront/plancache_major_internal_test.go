package sqlfront

import (
	"context"
	"testing"
)

// A plan binds the followed major's function library and literal
// dialect: once the followed server is upgraded (the advertised version
// changes under a connected session) the cached plan of the same text is
// not reused.
func TestPlanCacheKeyedByFollowedMajor(t *testing.T) {
	s := benchSession()
	s.srv.opts.ServerVersion = "14.5"
	ctx := context.Background()
	const q = "SELECT 2.5::numeric ^ 3 FROM pgbench_accounts WHERE aid = 1"
	before, err := s.plans(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.plans(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again[0] != before[0] {
		t.Fatal("the same major's second plan was not the cached one")
	}
	s.srv.opts.ServerVersion = "15.2"
	after, err := s.plans(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if after[0] == before[0] {
		t.Fatal("after the followed major changed 14 → 15 the session reused the plan made for 14")
	}
}
