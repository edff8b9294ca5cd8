package builtin

import (
	"fmt"
	"testing"

	"github.com/sidecar-dev/sidecar/types"
)

// TestRegexCacheChecksEverySubject: a pattern compiled and cached for
// one row's subject is still checked against the next row's: a cached
// case-insensitive pattern or class escape refuses a non-ASCII subject
// (0A000) exactly as an uncached one does, and answers ASCII ones.
func TestRegexCacheChecksEverySubject(t *testing.T) {
	for _, withCache := range []bool{false, true} {
		c := &Context{}
		if withCache {
			c.Regex = NewRegexCache()
		}
		for _, tc := range []struct {
			pat, subject string
			icase        bool
			refused      bool
		}{
			{"abc", "xABCx", true, false},
			{"abc", "ÄBC", true, true},
			{"abc", "xabc", true, false},
			{`\d+`, "a1", false, false},
			{`\d+`, "é1", false, true},
			{`\d+`, "b2", false, false},
		} {
			_, _, err := regexFor(c, tc.pat, reFlags{icase: tc.icase}, tc.subject)
			if (err != nil) != tc.refused {
				t.Errorf("cache %v: %q against %q: err %v, want refused %v", withCache, tc.pat, tc.subject, err, tc.refused)
			}
			_, err = compileMatcher(c, tc.pat, reFlags{icase: tc.icase}, false, tc.subject)
			if (err != nil) != tc.refused {
				t.Errorf("cache %v: matcher %q against %q: err %v, want refused %v", withCache, tc.pat, tc.subject, err, tc.refused)
			}
		}
	}
}

// TestRegexCacheBounded: patterns that differ on every row (read from a
// column) never hold more than maxCachedRegexes compiled forms, and an
// invalid pattern's error is kept and given again.
func TestRegexCacheBounded(t *testing.T) {
	c := &Context{Regex: NewRegexCache()}
	for i := range 1000 {
		if _, _, err := regexFor(c, fmt.Sprintf("a%db", i), reFlags{}, "xa1b"); err != nil {
			t.Fatal(err)
		}
		if n := len(c.Regex.m); n > maxCachedRegexes {
			t.Fatalf("after %d patterns the cache holds %d (bound %d)", i+1, n, maxCachedRegexes)
		}
	}
	for range 2 {
		if _, _, err := regexFor(c, "a(b", reFlags{}, "ab"); err == nil {
			t.Fatal("unbalanced parenthesis answered")
		}
	}
}

// BenchmarkRegexReplaceRows is regexp_replace over a column of rows with
// one constant pattern, compiled per row (no cache: before) and once
// per statement (cache).
func BenchmarkRegexReplaceRows(b *testing.B) {
	rows := make([]types.Value, 1024)
	for i := range rows {
		rows[i] = fmt.Sprintf("purchase_%d", i)
	}
	for _, withCache := range []bool{false, true} {
		b.Run(fmt.Sprintf("cache=%v", withCache), func(b *testing.B) {
			c := &Context{}
			if withCache {
				c.Regex = NewRegexCache()
			}
			for i := 0; b.Loop(); i++ {
				a := []types.Value{rows[i%len(rows)], "([a-z])", `<\1>`}
				if _, err := regexReplaceAt(c, a, "g", 1, -1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
