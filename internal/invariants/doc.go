// Package invariants switches on the project's internal assertions.
//
// The checks written beside the code as `// INVARIANT:` comments run when the
// binary is built with the `invariants` build tag or with the race detector
// (Pebble's pattern: `go test -tags invariants`, `go test -race`). They cost
// time, so production builds leave them out; CI runs the suite with both.
//
// A failed check is a bug in the package that asserts it, never bad input:
// it panics with a message naming the invariant. Bad input (a corrupt node, a
// malformed record) is an error, not an invariant.
package invariants

import "fmt"

// Check panics with the formatted message when Enabled and cond is false.
// Callers guard expensive conditions with `if invariants.Enabled` so that
// the condition is not even computed in production builds.
func Check(cond bool, format string, args ...any) {
	if Enabled && !cond {
		panic(fmt.Sprintf("invariant violated: "+format, args...))
	}
}
