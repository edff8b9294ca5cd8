package exec

import (
	"testing"
)

// TestLikeFastMatchesLike compares the compiled matcher with like() on
// every pattern of up to five pieces and every subject of up to four
// pieces over an alphabet with a multibyte character, an invalid byte and
// a lone leading byte: the same answer wherever the pattern compiles, and
// the patterns of TPC-H compile.
func TestLikeFastMatchesLike(t *testing.T) {
	pieces := []string{"a", "b", "é", "%", "\xff", "\xc3", "\uFFFD", "_"}
	subj := []string{"a", "b", "é", "\xff", "\xc3", "\uFFFD", "%"}
	var all func(alpha []string, n int, prefix string, f func(string))
	all = func(alpha []string, n int, prefix string, f func(string)) {
		f(prefix)
		if n == 0 {
			return
		}
		for _, a := range alpha {
			all(alpha, n-1, prefix+a, f)
		}
	}
	var subjects []string
	all(subj, 4, "", func(s string) { subjects = append(subjects, s) })
	compiled, checked := 0, 0
	all(pieces, 5, "", func(p string) {
		lp, ok := compileLike(p)
		if !ok {
			return
		}
		compiled++
		for _, s := range subjects {
			want, err := like(s, p)
			if err != nil {
				t.Fatalf("like(%q, %q): %v", s, p, err)
			}
			if got := lp.match(s); got != want {
				t.Fatalf("compiled %q on %q = %v, like() = %v", p, s, got, want)
			}
			checked++
		}
	})
	if compiled == 0 || checked == 0 {
		t.Fatal("no pattern compiled")
	}
	t.Logf("%d patterns compiled, %d pairs compared", compiled, checked)
	for _, p := range []string{"%special%requests%", "%green%", "MEDIUM POLISHED%", "%BRASS", "PROMO%", "forest%", "%", ""} {
		if _, ok := compileLike(p); !ok {
			t.Errorf("TPC-H's pattern %q does not compile", p)
		}
	}
	for _, p := range []string{`a\%`, "a_b", "\xff%", "%\uFFFD"} {
		if _, ok := compileLike(p); ok {
			t.Errorf("pattern %q compiled: like() must match it", p)
		}
	}
}

// TestLikeCacheFollowsPattern checks that a pattern read from a column
// (a new one per row) is recompiled when it changes, and an escape
// error still comes from like().
func TestLikeCacheFollowsPattern(t *testing.T) {
	var c likeCache
	for _, tc := range []struct {
		s, p string
		want bool
	}{{"abc", "a%", true}, {"abc", "b%", false}, {"abc", "%c", true}, {"abc", "a_c", true}, {"abc", "a%", true}, {"xbc", "a%", false}} {
		got, err := c.like(tc.s, tc.p)
		if err != nil || got != tc.want {
			t.Errorf("like(%q, %q) = %v, %v; want %v", tc.s, tc.p, got, err, tc.want)
		}
	}
	if _, err := c.like("a", `a\`); err == nil {
		t.Error(`pattern a\ answered without the escape error`)
	}
}

// BenchmarkLikeQ13 is Q13's NOT LIKE '%special%requests%' on an
// o_comment-like string, through the cache and through like().
func BenchmarkLikeQ13(b *testing.B) {
	s := "furiously regular deposits sleep slyly. carefully bold requests across the special"
	p := "%special%requests%"
	b.Run("compiled", func(b *testing.B) {
		var c likeCache
		for b.Loop() {
			if m, _ := c.like(s, p); m {
				b.Fatal("matched")
			}
		}
	})
	b.Run("like", func(b *testing.B) {
		for b.Loop() {
			if m, _ := like(s, p); m {
				b.Fatal("matched")
			}
		}
	})
}
