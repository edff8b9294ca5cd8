package exec

import "github.com/sidecar-dev/sidecar/sql/builtin"

// caseMap is the statement's case mapping (Options.Clock's Case: lower,
// upper, initcap and ILIKE under the collation's LC_CTYPE), nil when
// not known.
func (c *compiler) caseMap() *builtin.CaseMap {
	if c == nil || c.e == nil || c.e.clock == nil {
		return nil
	}
	return c.e.clock.Case
}
