package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMissingFailsUnderCI runs this package's helper test in a child
// process with and without CI=true: it skips locally and fails under CI,
// naming the package either way.
func TestMissingFailsUnderCI(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "1" {
		LookPath(t, "apt-get install no-such-package", "sidecar-no-such-program-on-path")
		t.Fatal("LookPath returned for a program not on PATH")
	}
	for _, c := range []struct {
		ci       string
		fail     bool
		wantText string
	}{
		{"", false, "--- SKIP"},
		{"false", false, "--- SKIP"},
		{"true", true, "--- FAIL"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingFailsUnderCI$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTENV_CHILD=1", "CI="+c.ci)
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != c.fail || !strings.Contains(string(out), c.wantText) || !strings.Contains(string(out), "apt-get install no-such-package") {
			t.Errorf("CI=%q: exit error %v, want failure %v and %q naming the package:\n%s", c.ci, err, c.fail, c.wantText, out)
		}
	}
}
