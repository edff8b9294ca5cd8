package main

import (
	"strings"
	"testing"
)

// TestRevertOneVersion: `sidecar revert <ref>` undoes the one version ref
// names, exactly as `revert <the version before> <ref>` (git revert, dolt
// revert), and the initial copy, which has nothing before it, is refused
// before anything is printed.
func TestRevertOneVersion(t *testing.T) {
	cfg, lsns := cliFixture(t)
	for _, format := range []string{"sql", "json", "text"} {
		oneOut, oneErr, oneCode := historyCLI(t, "revert", lsns[1], "--format", format, "--config", cfg)
		twoOut, twoErr, twoCode := historyCLI(t, "revert", lsns[0], lsns[1], "--format", format, "--config", cfg)
		if oneOut != twoOut || oneErr != twoErr || oneCode != twoCode {
			t.Errorf("--format %s: revert %s (exit %d)\n%s\n%s\ndiffers from revert %s %s (exit %d)\n%s\n%s",
				format, lsns[1], oneCode, oneOut, oneErr, lsns[0], lsns[1], twoCode, twoOut, twoErr)
		}
		if oneCode != 1 || !strings.Contains(oneErr+oneOut, "conflict") {
			t.Errorf("--format %s: revert %s: exit %d, want 1 with the conflict:\n%s\n%s", format, lsns[1], oneCode, oneOut, oneErr)
		}
	}
	out, errOut, code := historyCLI(t, "revert", "HEAD~3", "--config", cfg)
	if code != 2 || out != "" || !strings.Contains(errOut, "table copy, not a commit") {
		t.Errorf("revert of the initial copy: exit %d, stdout %q, stderr %q; want exit 2, nothing printed, a reason", code, out, errOut)
	}
}
