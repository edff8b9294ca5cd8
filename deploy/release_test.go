package deploy

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestReleaseScript: scripts/release is valid bash, and (dry run) builds
// a static linux binary per architecture stamped with the version and the
// commit `sidecar version` prints, each with the C compiler for its
// target, then writes their SHA-256 sums. The real build compiles the cgo
// SQL parser per architecture (minutes), so CI checks the plan.
func TestReleaseScript(t *testing.T) {
	if out, err := exec.Command("bash", "-n", "../scripts/release").CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	cmd := exec.Command("../scripts/release", "v9.8.7")
	cmd.Env = append(os.Environ(), "DRY_RUN=1", "OUT=/tmp/not-written")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	plan := string(out)
	for _, arch := range []string{"amd64", "arm64"} {
		var line string
		for _, l := range strings.Split(plan, "\n") {
			if strings.Contains(l, "GOARCH="+arch) {
				line = l
			}
		}
		for _, want := range []string{"CGO_ENABLED=1", "GOOS=linux", "go build", "-trimpath", "main.version=v9.8.7", "main.commit=",
			"-extldflags\\ -static", "-o /tmp/not-written/sidecar-v9.8.7-linux-" + arch, "./cmd/sidecar"} {
			if !strings.Contains(line, want) {
				t.Errorf("%s build lacks %q: %q", arch, want, line)
			}
		}
	}
	if runtime.GOARCH == "amd64" && !strings.Contains(plan, "CC=aarch64-linux-gnu-gcc") {
		t.Errorf("arm64 is not built with a cross compiler:\n%s", plan)
	}
	if !strings.Contains(plan, "sha256sum sidecar-v9.8.7-linux-amd64 sidecar-v9.8.7-linux-arm64 > sidecar-v9.8.7-SHA256SUMS") {
		t.Errorf("no checksums:\n%s", plan)
	}
	// The -X targets exist.
	src, err := os.ReadFile("../cmd/sidecar/version.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"version = \"dev\"", "commit  = \"\""} {
		if !strings.Contains(string(src), v) {
			t.Errorf("cmd/sidecar/version.go no longer declares %s", v)
		}
	}
}
