//go:build !invariants

package prolly

// invariants enables expensive internal assertions; see invariants_on.go.
const invariants = false
