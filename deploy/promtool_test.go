package deploy

import (
	"os"
	"os/exec"
	"testing"
)

// TestAlertRules checks deploy/prometheus/alerts.yaml with promtool: the
// rules parse (check rules) and each alert fires, and only, on its
// synthetic series (test rules, prometheus/alerts_test.yaml).
func TestAlertRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool is missing under CI: .ci/run installs Debian's prometheus package")
		}
		t.Skip("promtool not installed: apt-get install prometheus (Debian's package provides promtool)")
	}
	for _, args := range [][]string{{"check", "rules", "alerts.yaml"}, {"test", "rules", "alerts_test.yaml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = "prometheus"
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}
