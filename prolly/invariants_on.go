//go:build invariants

package prolly

// invariants enables expensive internal assertions (go test -tags
// invariants). They panic: a failed one is a bug in this package, not bad
// input.
const invariants = true
