package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionNamesCommit: sidecar version prints the commit stamped with
// -ldflags -X main.commit (scripts/release, the Dockerfile), else the
// toolchain's vcs.revision, marked -dirty for uncommitted changes.
func TestVersionNamesCommit(t *testing.T) {
	saved := commit
	t.Cleanup(func() { commit = saved })

	commit = "0123456789abcdef0123456789abcdef01234567"
	out, _, code := sidecar(t, "version")
	if code != 0 || !strings.Contains(out, "\ncommit: 0123456789abcdef0123456789abcdef01234567\n") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}

	commit = ""
	bi := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "feedface"}, {Key: "vcs.modified", Value: "true"}}}
	if got := buildCommit(bi); got != "feedface-dirty" {
		t.Errorf("buildCommit from vcs settings = %q", got)
	}
	bi.Settings[1].Value = "false"
	if got := buildCommit(bi); got != "feedface" {
		t.Errorf("buildCommit clean = %q", got)
	}
	if got := buildCommit(&debug.BuildInfo{}); got != "" {
		t.Errorf("buildCommit without VCS = %q", got)
	}
}
