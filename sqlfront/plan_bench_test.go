package sqlfront

import (
	"context"
	"testing"

	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/query"
)

// staticSource answers only what planning asks (tables and HEAD): the
// benchmarks below measure planning, not reads.
type staticSource struct{ tables []Table }

func (s *staticSource) Tables() []Table { return s.tables }
func (s *staticSource) Resolve(context.Context, string) (Version, error) {
	return Version{Ref: "HEAD", LSN: "0/1", pin: "0/1"}, nil
}
func (s *staticSource) Table(_ context.Context, _ Version, name string) (Table, error) {
	for _, t := range s.tables {
		if t.Name == name {
			return t, nil
		}
	}
	return Table{}, ErrUnknownTable
}
func (s *staticSource) Get(context.Context, Version, *Table, []string) ([]*string, bool, error) {
	return nil, false, nil
}
func (s *staticSource) Scan(context.Context, Version, *Table, string, string, func([]*string) error) error {
	return nil
}
func (s *staticSource) Aggregate(context.Context, Version, *Table, query.Request) (*query.Result, error) {
	return nil, query.ErrBadRequest
}
func (s *staticSource) History() history.API { return nil }

func benchSession() *session {
	src := &staticSource{tables: []Table{{Name: "public.pgbench_accounts", Schema: "public", Rel: "pgbench_accounts", OID: 16400,
		Columns: []Column{{Name: "aid", TypeOID: oidInt4, TypeMod: -1, Key: true}, {Name: "bid", TypeOID: oidInt4, TypeMod: -1},
			{Name: "abalance", TypeOID: oidInt4, TypeMod: -1}, {Name: "filler", TypeOID: oidBpchar, TypeMod: 88}}, KeyCols: []int{0}}}}
	srv := &Server{src: src}
	return &session{srv: srv, tx: 'I', settings: map[string]string{}}
}

const pgbenchSelect = "SELECT abalance FROM pgbench_accounts WHERE aid = $1;"

// BenchmarkPlanCached is the planning of a statement found in the plan
// cache (what a Parse of a known text costs); the target is ≤ 20 µs.
func BenchmarkPlanCached(b *testing.B) {
	s := benchSession()
	ctx := context.Background()
	if _, err := s.plans(ctx, pgbenchSelect, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.plans(ctx, pgbenchSelect, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanUncached parses and plans the statement every time.
func BenchmarkPlanUncached(b *testing.B) {
	s := benchSession()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.planQuery(ctx, pgbenchSelect, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPlanPushesTheKeyDown(t *testing.T) {
	s := benchSession()
	ps, err := s.planQuery(context.Background(), pgbenchSelect, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := ps[0]
	if len(p.from) != 1 || len(p.from[0].keyEq) != 1 || p.params[0] != oidInt4 {
		t.Fatalf("want a point get on aid with $1 typed int4: %+v params %v", p.from[0], p.params)
	}
}

func TestPlanPushesPrefixLikeDown(t *testing.T) {
	s := benchSession()
	src := s.srv.src.(*staticSource)
	src.tables = append(src.tables, Table{Name: "public.words", Schema: "public", Rel: "words", OID: 16401,
		Columns: []Column{{Name: "w", TypeOID: oidText, TypeMod: -1, Key: true}, {Name: "n", TypeOID: oidInt4, TypeMod: -1}}, KeyCols: []int{0}})
	ps, err := s.planQuery(context.Background(), "SELECT n FROM words WHERE w LIKE 'ab%' AND n > 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].from[0].likePat == nil {
		t.Fatal("the LIKE prefix is not pushed into the key range")
	}
	for in, want := range map[string]string{"ab": "ac", "a\xff": "b", "\xff\xff": "", "aé": "a\xc3\xaa"} {
		if got := prefixEnd(in); got != want {
			t.Errorf("prefixEnd(%q) = %q, want %q", in, got, want)
		}
	}
}
