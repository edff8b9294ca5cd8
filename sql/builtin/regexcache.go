package builtin

import (
	"regexp"
	"sync"
)

// maxCachedRegexes bounds a RegexCache: a pattern read from a column can
// differ on every row, so the cache is emptied when it holds this many.
const maxCachedRegexes = 128

// RegexCache keeps one statement's compiled regular expressions, so a
// pattern applied to every row (regexp_replace(col, '…', …), col ~ '…')
// is translated and compiled once, not once per row. It is safe for
// the statement's parallel workers; the zero Context has none and
// compiles every call.
type RegexCache struct {
	mu sync.Mutex
	m  map[reKey]*reCompiled
}

// NewRegexCache is an empty cache for one statement.
func NewRegexCache() *RegexCache { return &RegexCache{m: map[reKey]*reCompiled{}} }

// reKey names a compiled form: the pattern and its flags; matcher says
// whether the entry is compileMatcher's (with its no-BOL form) or
// compileARE's.
type reKey struct {
	pat     string
	f       reFlags
	matcher bool
}

// reCompiled is what compileARE (and for a matcher, compileMatcher's
// subject-independent part) produced, its error included: a pattern
// refused once is refused on every row.
type reCompiled struct {
	re     *regexp.Regexp
	form   *areForm
	noBOL  *regexp.Regexp
	subErr error // checkSubmatches' verdict (matchers only)
	err    error
}

// get returns k's entry, computing it with build on a miss. build runs
// outside the lock (compiling can take a while); two workers missing
// together both compile and one result is kept.
func (c *RegexCache) get(k reKey, build func() *reCompiled) *reCompiled {
	if c == nil {
		return build()
	}
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return e
	}
	e = build()
	c.mu.Lock()
	if len(c.m) >= maxCachedRegexes {
		clear(c.m)
	}
	c.m[k] = e
	c.mu.Unlock()
	return e
}

// regexCache is c's cache; nil when c or its cache is nil.
func (c *Context) regexCache() *RegexCache {
	if c == nil {
		return nil
	}
	return c.Regex
}
