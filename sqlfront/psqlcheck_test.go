package sqlfront_test

import (
	"slices"
	"strings"
	"testing"
)

// psqlCheck is the one differential check of the package's psql tests:
// each statement (or psql meta-command) runs alone through `psql -c` on
// PostgreSQL and on the SQL port, and what psql prints must be the same.
// The fields say what else is allowed; the zero value allows nothing: an
// error on either side fails the test (on PostgreSQL at once — the
// test's own data or statement is wrong).
type psqlCheck struct {
	sqlURL, pgURL string
	// args go before each statement's -c: "-At", or "-c", "SET …" to
	// run a setting first in the same session.
	args []string
	// refusable accepts the SQL port refusing a statement with 0A000
	// (logged): PostgreSQL's answer or a refusal, never another answer.
	refusable bool
	// pgFails accepts PostgreSQL failing a statement: the SQL port must
	// then fail with the same SQLSTATE (or 0A000 when refusable).
	pgFails bool
}

// psqlRig is the zero check against a rig's two servers.
func psqlRig(r *rig) psqlCheck { return psqlCheck{sqlURL: r.sqlURL, pgURL: r.pgURL} }

// withArgs returns the check with args before each statement.
func (c psqlCheck) withArgs(args ...string) psqlCheck {
	c.args = args
	return c
}

// orRefused returns the check accepting 0A000 refusals.
func (c psqlCheck) orRefused() psqlCheck {
	c.refusable = true
	return c
}

// orSameError returns the check accepting PostgreSQL's errors when the
// SQL port fails with the same SQLSTATE.
func (c psqlCheck) orSameError() psqlCheck {
	c.pgFails = true
	return c
}

// run prints what psql prints for stmt on url, and whether it failed.
func (c psqlCheck) run(t *testing.T, url, stmt string) (string, error) {
	t.Helper()
	args := append(slices.Clone(c.args), "-v", "VERBOSITY=verbose", "-c", stmt)
	return psql(t, url, args...)
}

// same checks each statement as the fields allow.
func (c psqlCheck) same(t *testing.T, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		want, werr := c.run(t, c.pgURL, q)
		got, err := c.run(t, c.sqlURL, q)
		switch {
		case err != nil && c.refusable && psqlState(got) == "0A000":
			t.Logf("%s refused: %s", q, firstLine(strings.TrimSpace(got)))
		case werr != nil && !c.pgFails:
			t.Fatalf("%s on PostgreSQL: %v\n%s", q, werr, want)
		case werr != nil:
			if err == nil || psqlState(got) != psqlState(want) {
				t.Errorf("%s: PostgreSQL fails %s, sidecar (%v):\n%s\nPostgreSQL:\n%s", q, psqlState(want), err, got, want)
			}
		case err != nil || got != want:
			t.Errorf("%s: (%v)\n%s\nPostgreSQL:\n%s", q, err, got, want)
		}
	}
}

// refused checks that the SQL port fails each statement with one of
// states (0A000 when none is given) — a refusal PostgreSQL does not
// make, or PostgreSQL's own error.
func (c psqlCheck) refused(t *testing.T, states []string, stmts ...string) {
	t.Helper()
	if len(states) == 0 {
		states = []string{"0A000"}
	}
	for _, q := range stmts {
		got, err := c.run(t, c.sqlURL, q)
		if err == nil || !slices.Contains(states, psqlState(got)) {
			t.Errorf("%s: (%v) %s; want SQLSTATE %s", q, err, strings.TrimSpace(got), strings.Join(states, " or "))
		}
	}
}
