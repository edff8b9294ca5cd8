package deploy

import (
	"os/exec"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testenv"
)

// TestAlertRules checks deploy/prometheus/alerts.yaml with promtool: the
// rules parse (check rules) and each alert fires, and only, on its
// synthetic series (test rules, prometheus/alerts_test.yaml).
func TestAlertRules(t *testing.T) {
	promtool := testenv.LookPath(t, "apt-get install prometheus (Debian's package provides promtool)", "promtool")
	for _, args := range [][]string{{"check", "rules", "alerts.yaml"}, {"test", "rules", "alerts_test.yaml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = "prometheus"
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}
