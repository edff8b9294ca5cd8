package main

import (
	"os"
	"strings"
	"testing"
)

// TestOfflineCommandsQuietAtInfo: a history command that opens the data
// directory itself prints no INFO line ("mirror opened") at the default
// log level, only its output (issue 25).
func TestOfflineCommandsQuietAtInfo(t *testing.T) {
	cfg, _ := cliFixture(t)
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(data), "level: warn", "level: info", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"log", "-n", "1"}, {"diff", "HEAD~1", "HEAD", "--stat"}} {
		out, errOut, code := historyCLI(t, append(args, "--config", cfg)...)
		if code != 0 || out == "" || strings.Contains(errOut, "mirror opened") || strings.Contains(errOut, "level=INFO") {
			t.Errorf("%v: exit %d, stderr %q; want output and a quiet stderr", args, code, errOut)
		}
	}
}
