package refs_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/refs"
)

var S = historytest.S

func setup(t *testing.T) (*historytest.Fixture, *refs.Resolver, []mirror.Version) {
	f := historytest.New(t)
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"v", "text"})
	f.CreateTable(rel, [][]*string{{S("1"), S("a")}})
	var vs []mirror.Version
	for i := range 20 {
		vs = append(vs, f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{S("1"), S(string(rune('b' + i)))}) }))
	}
	return f, refs.NewResolver(f.DB, f.Mirror), vs
}

func TestResolveVersions(t *testing.T) {
	_, r, vs := setup(t)
	ctx := t.Context()
	last := len(vs) - 1
	cases := map[string]mirror.Version{
		"HEAD":                      vs[last],
		"HEAD~0":                    vs[last],
		"HEAD~1":                    vs[last-1],
		"HEAD^^":                    vs[last-2],
		"HEAD~19":                   vs[0],
		vs[5].EndLSN.String():       vs[5],
		(vs[5].EndLSN + 3).String(): vs[5], // latest at or before
		"@" + vs[7].CommitTime.Format(time.RFC3339Nano):                           vs[7],
		"@" + vs[7].CommitTime.Add(500*time.Millisecond).Format(time.RFC3339Nano): vs[7],
		"@" + vs[last].CommitTime.Add(time.Hour).Format(time.RFC3339):             vs[last],
	}
	for ref, want := range cases {
		p, err := r.Resolve(ctx, ref)
		if err != nil {
			t.Errorf("Resolve(%q): %v", ref, err)
			continue
		}
		if p.Version.EndLSN != want.EndLSN || p.Branch != nil {
			t.Errorf("Resolve(%q) = %s, want %s", ref, p.Version.EndLSN, want.EndLSN)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	_, r, vs := setup(t)
	ctx := t.Context()
	cases := []struct {
		ref  string
		is   error
		want []string
	}{
		{"HEAD~21", refs.ErrUnknownRef, []string{"only 20 versions", "the initial copy at"}},
		{"0/10", refs.ErrUnknownRef, []string{"before the oldest retained version", vs[len(vs)-1].EndLSN.String()}},
		{"@2000-01-01T00:00:00Z", refs.ErrUnknownRef, []string{"before the oldest retained version", vs[0].EndLSN.String()}},
		{"nope", refs.ErrUnknownRef, []string{"no tag or branch", "there are no tags"}},
		{"HEAD~x", refs.ErrBadRef, []string{"HEAD~N"}},
		{"a b", refs.ErrBadRef, []string{"valid tag or branch name"}},
	}
	for _, c := range cases {
		_, err := r.Resolve(ctx, c.ref)
		if !errors.Is(err, c.is) {
			t.Errorf("Resolve(%q) = %v, want %v", c.ref, err, c.is)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Resolve(%q) = %q, want it to mention %q", c.ref, err, w)
			}
		}
	}
}

func TestTagsAndBranches(t *testing.T) {
	_, r, vs := setup(t)
	ctx := t.Context()
	cat := r.Catalog
	if err := cat.CreateTag(ctx, refs.Tag{Name: "before-bad", LSN: vs[3].EndLSN, Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateTag(ctx, refs.Tag{Name: "before-bad", LSN: vs[4].EndLSN}); !errors.Is(err, refs.ErrExists) {
		t.Fatalf("duplicate tag: %v", err)
	}
	root := prolly.Root{Hash: prolly.Hash{1, 2, 3}, Spec: prolly.SpecID{9}}
	b := refs.Branch{Name: "fix/1", From: vs[10].EndLSN, Created: time.Unix(5, 0).UTC(),
		Roots: []refs.TableRoot{{Table: "public.z", Root: root}, {Table: "public.a", Root: prolly.Root{Spec: prolly.SpecID{1}}}}}
	if err := cat.CreateBranch(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateBranch(ctx, refs.Branch{Name: "before-bad"}); !errors.Is(err, refs.ErrExists) {
		t.Fatalf("branch over a tag: %v", err)
	}
	p, err := r.Resolve(ctx, "before-bad")
	if err != nil || p.Version.EndLSN != vs[3].EndLSN || p.Branch != nil {
		t.Fatalf("tag: %+v %v", p, err)
	}
	p, err = r.Resolve(ctx, "fix/1")
	if err != nil || p.Branch == nil || p.LSN() != vs[10].EndLSN {
		t.Fatalf("branch: %+v %v", p, err)
	}
	if got, ok := p.Branch.Root("public.z"); !ok || got != root || p.Branch.Roots[0].Table != "public.a" || !p.Branch.Created.Equal(b.Created) {
		t.Fatalf("branch round trip: %+v", p.Branch)
	}
	_, err = r.Resolve(ctx, "before-bda")
	if !errors.Is(err, refs.ErrUnknownRef) || !strings.Contains(err.Error(), "nearest: before-bad") {
		t.Fatalf("near miss: %v", err)
	}
	tags, _ := cat.Tags()
	brs, _ := cat.Branches()
	if len(tags) != 1 || len(brs) != 1 {
		t.Fatalf("lists: %v %v", tags, brs)
	}
	if err := cat.DeleteTag(ctx, "fix/1"); !errors.Is(err, refs.ErrUnknownRef) {
		t.Fatalf("delete branch as tag: %v", err)
	}
	if err := cat.DeleteTag(ctx, "before-bad"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resolve(ctx, "before-bad"); !errors.Is(err, refs.ErrUnknownRef) {
		t.Fatalf("deleted tag resolves: %v", err)
	}
	lsns, err := r.LatestFirst(vs[5].EndLSN, 3)
	if err != nil || len(lsns) != 3 || lsns[0] != vs[5].EndLSN || lsns[2] != vs[3].EndLSN {
		t.Fatalf("LatestFirst: %v %v", lsns, err)
	}
}

// TestResolveInitialCopy: before any commit the initial copy is HEAD (and
// every LSN from its copy LSN on), readable and taggable; once commits
// come it is the version before the first one. A copy resumed under two
// snapshots (tables at different LSNs) is no version.
func TestResolveInitialCopy(t *testing.T) {
	f := historytest.New(t)
	ctx := t.Context()
	rel, want := f.KVTable(5)
	c := f.LSN
	r := refs.NewResolver(f.DB, f.Mirror)
	for _, ref := range []string{"HEAD", "HEAD~0", c.String(), (c + 100).String()} {
		p, err := r.Resolve(ctx, ref)
		if err != nil || p.Version.EndLSN != c {
			t.Errorf("Resolve(%q) before any commit = %s, %v; want the copy at %s", ref, p.Version.EndLSN, err, c)
		}
	}
	for _, ref := range []string{"HEAD~1", (c - 1).String(), "@2000-01-01T00:00:00Z"} {
		if _, err := r.Resolve(ctx, ref); !errors.Is(err, refs.ErrUnknownRef) || !strings.Contains(err.Error(), "initial copy at "+c.String()) {
			t.Errorf("Resolve(%q) before any commit: %v, want ErrUnknownRef naming the copy", ref, err)
		}
	}
	if got, err := historytest.ReadKV(ctx, f.Mirror, c); err != nil || len(got) != len(want) {
		t.Fatalf("read at the copy: %d rows, %v; want %d", len(got), err, len(want))
	}

	v := f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{S("1"), S("changed")}) })
	for ref, lsn := range map[string]mirror.Version{"HEAD": v, "HEAD~1": {EndLSN: c}} {
		if p, err := r.Resolve(ctx, ref); err != nil || p.Version.EndLSN != lsn.EndLSN {
			t.Errorf("Resolve(%q) after a commit = %s, %v; want %s", ref, p.Version.EndLSN, err, lsn.EndLSN)
		}
	}
	if _, err := r.Resolve(ctx, "HEAD~2"); !errors.Is(err, refs.ErrUnknownRef) || !strings.Contains(err.Error(), "only 1 versions") {
		t.Errorf("HEAD~2 after one commit: %v", err)
	}

	// Two tables copied at different LSNs: no single copied state.
	g := historytest.New(t)
	g.KVTable(3)
	g.CreateTable(historytest.Rel(2, "public", "u", 1, [2]string{"id", "int8"}), [][]*string{{S("1")}})
	if _, err := refs.NewResolver(g.DB, g.Mirror).Resolve(ctx, "HEAD"); !errors.Is(err, refs.ErrUnknownRef) || !strings.Contains(err.Error(), "different snapshots") {
		t.Errorf("HEAD of a copy under two snapshots: %v", err)
	}
}
