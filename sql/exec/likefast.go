package exec

import (
	"strings"
	"unicode/utf8"
)

// A LIKE pattern made of literal text and '%' alone (TPC-H Q13's
// '%special%requests%', Q9's '%green%', Q16's 'MEDIUM POLISHED%', Q2's
// '%BRASS', Q14/Q20's 'PROMO%'/'forest%') is matched by substring
// search instead of like()'s rune-by-rune backtracking: the anchored
// head and tail compared in place, each middle literal found leftmost
// after the one before (leftmost is enough where '%' is the only
// wildcard). like() was 21 % of Q13's CPU (session 24's profile at SF
// 0.2).
//
// The answer is like()'s for every subject string, valid UTF-8 or not,
// when the pattern is valid UTF-8 without U+FFFD: like() compares runes,
// decoding each invalid byte of the subject as U+FFFD alone, so a
// literal never matches an invalid byte, and a literal (which starts
// with a leading byte) found by byte search always starts where like()'s
// decoding starts a rune. Patterns with '_', '\' escapes, invalid
// UTF-8 or U+FFFD stay with like().

// likePattern is a LIKE pattern compiled for likePattern.match.
type likePattern struct {
	// exact: no '%', the subject must equal head.
	exact bool
	// head is the literal before the first '%', tail the one after
	// the last, mids the non-empty ones between, in order.
	head, tail string
	mids       []string
}

// compileLike compiles p, or answers false where like() must match it.
func compileLike(p string) (*likePattern, bool) {
	if strings.ContainsAny(p, `_\`) || !utf8.ValidString(p) || strings.ContainsRune(p, utf8.RuneError) {
		return nil, false
	}
	segs := strings.Split(p, "%")
	if len(segs) == 1 {
		return &likePattern{exact: true, head: p}, true
	}
	lp := &likePattern{head: segs[0], tail: segs[len(segs)-1]}
	for _, s := range segs[1 : len(segs)-1] {
		if s != "" {
			lp.mids = append(lp.mids, s)
		}
	}
	return lp, true
}

// match says whether s matches the pattern.
func (lp *likePattern) match(s string) bool {
	if lp.exact {
		return s == lp.head
	}
	if len(s) < len(lp.head)+len(lp.tail) || !strings.HasPrefix(s, lp.head) || !strings.HasSuffix(s, lp.tail) {
		return false
	}
	rest := s[len(lp.head) : len(s)-len(lp.tail)]
	for _, m := range lp.mids {
		i := strings.Index(rest, m)
		if i < 0 {
			return false
		}
		rest = rest[i+len(m):]
	}
	return true
}

// likeCache holds the last pattern an operator's right operand gave and
// its compiled form: a constant pattern is compiled once per compiled
// expression (whose evaluation never runs on two goroutines: scratch.go),
// a pattern from a column whenever it changes.
type likeCache struct {
	p    string
	lp   *likePattern
	fast bool
	set  bool
}

// like matches s against p, through the compiled pattern where it can.
func (c *likeCache) like(s, p string) (bool, error) {
	if !c.set || p != c.p {
		c.p, c.set = p, true
		c.lp, c.fast = compileLike(p)
	}
	if c.fast {
		return c.lp.match(s), nil
	}
	return like(s, p)
}
