// Package testenv decides what a test does when a program, library or
// locale it needs from the machine is missing: on a developer's machine
// it skips, naming the Debian package to install; under CI (CI=true,
// which .ci/run sets) it fails. A CI machine whose install failed once
// passed by skipping the client tests (pgjdbc, psycopg, SQLAlchemy,
// pandas, chromium, promtool); every such check goes through Missing so
// that cannot happen again.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// InCI says whether the tests run under CI: the CI variable is set to
// anything but "", "0" or "false" (.ci/run sets CI=true; most CI
// services set it too).
func InCI() bool {
	switch os.Getenv("CI") {
	case "", "0", "false":
		return false
	}
	return true
}

// Missing ends t because what is missing: a skip naming install (the
// Debian package, or how to get it), or under CI a failure saying the
// same.
func Missing(t testing.TB, what, install string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s is missing under CI (CI=%s): %s (.ci/run installs it; did its install fail?)", what, os.Getenv("CI"), install)
	}
	t.Skipf("%s is missing: %s", what, install)
}

// LookPath is the path of the first of names found on PATH; when none
// is, Missing(t, names[0], install).
func LookPath(t testing.TB, install string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	Missing(t, names[0]+" (not on PATH)", install)
	return ""
}
