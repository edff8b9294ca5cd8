package sqlfront

import "strings"

// Schema exclusions written as patterns. BI tools exclude the system
// schemas with one regular expression (Metabase: `nspname !~
// '^information_schema|catalog_history|pg_'`) or NOT LIKE 'pg_%'. A
// pattern excludes a system schema when it matches its name; the
// matching here is decided only for patterns whose meaning is the same
// under every regular-expression flavour — alternatives of literal
// identifier characters, each maybe anchored with ^ and $ — and LIKE
// patterns without escapes, so no proof rests on how PostgreSQL's
// regex engine reads something else (undecided: not excluded).

// regexExcludes says whether `name !~ pat` is false for name (the
// pattern matches it), decided only for simple patterns (ok false
// otherwise).
func regexExcludes(pat, name string) (matches, ok bool) {
	for _, alt := range strings.Split(pat, "|") {
		start := strings.HasPrefix(alt, "^")
		end := strings.HasSuffix(alt, "$") && !strings.HasSuffix(alt, `\$`)
		lit := strings.TrimSuffix(strings.TrimPrefix(alt, "^"), "$")
		if lit == "" {
			return false, false // an empty alternative matches everything: not a simple pattern
		}
		for _, c := range lit {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
				return false, false
			}
		}
		switch {
		case start && end && name == lit,
			start && !end && strings.HasPrefix(name, lit),
			!start && end && strings.HasSuffix(name, lit),
			!start && !end && strings.Contains(name, lit):
			matches = true
		}
	}
	return matches, true
}

// likeExcludes is regexExcludes for `name NOT LIKE pat`: patterns of
// literal characters, % and _ (an escape makes it undecided; the schema
// names are ASCII, so byte and character matching agree).
func likeExcludes(pat, name string) (matches, ok bool) {
	if strings.ContainsRune(pat, '\\') {
		return false, false
	}
	return likeMatch(name, pat), true // expr.go
}
