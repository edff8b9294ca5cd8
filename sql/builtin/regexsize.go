package builtin

import "regexp/syntax"

// PostgreSQL's regex compiler fails 2201B "regular expression is too
// complex" when the automaton it builds passes REG_MAX_COMPILE_SPACE;
// Go's compiles the same pattern and answers. The exact limit depends
// on PostgreSQL's NFA optimization, so a pattern that could come near
// it is refused: more than maxAREQuantifiers quantified atoms once
// bounded repetitions are expanded (a chain of n stars costs PostgreSQL
// about n² arcs: 'x*y*z*' repeated 600 times fails, 500 times answers;
// 'a*' 1,000 times answers), or more than maxAREAtoms atoms expanded
// ('(a{255}){255}' fails, 'a' 100,000 times fails).
const (
	maxAREQuantifiers = 1000
	maxAREAtoms       = 10000
)

// checkARESize refuses a pattern (in Go's syntax, after rewriteARE)
// whose expanded size could reach PostgreSQL's limit.
func checkARESize(pat string) error {
	re, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return nil // the compile reports it
	}
	atoms, quants := areSize(re)
	if atoms > maxAREAtoms || quants > maxAREQuantifiers {
		return unsupported("a regular expression this large (PostgreSQL may find it too complex: %d atoms, %d quantifiers expanded; sidecar answers at most %d and %d)",
			min(atoms, 1<<30), min(quants, 1<<30), maxAREAtoms, maxAREQuantifiers)
	}
	return nil
}

// areSize counts re's atoms and quantifiers with every {m,n} expanded
// n times (m+1 when unbounded), saturating at 2^31.
func areSize(re *syntax.Regexp) (atoms, quants int64) {
	const sat = 1 << 31
	add := func(a, b int64) int64 { return min(a+b, sat) }
	mul := func(a, n int64) int64 {
		if a != 0 && n > sat/a {
			return sat
		}
		return a * n
	}
	switch re.Op {
	case syntax.OpLiteral:
		return int64(len(re.Rune)), 0
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1, 0
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		a, q := areSize(re.Sub[0])
		return a, add(q, 1)
	case syntax.OpRepeat:
		a, q := areSize(re.Sub[0])
		n := int64(re.Max)
		if n < 0 {
			n = int64(re.Min) + 1
		}
		n = max(n, 1)
		return mul(a, n), add(mul(q, n), n)
	}
	for _, s := range re.Sub {
		a, q := areSize(s)
		atoms, quants = add(atoms, a), add(quants, q)
	}
	return atoms, quants
}
