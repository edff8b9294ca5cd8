package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testenv"
)

// TestBenchMoved: `sidecar bench …` names the binary the benchmarks moved
// to and exits 2.
func TestBenchMoved(t *testing.T) {
	_, errOut, code := sidecar(t, "bench", "reads", "--rows", "10")
	if code != exitUsage || !strings.Contains(errOut, "sidecar-bench") || !strings.Contains(errOut, "go run ./cmd/sidecar-bench reads") {
		t.Fatalf("exit %d, stderr %q: want 2 and the way to sidecar-bench", code, errOut)
	}
}

// TestProductBinaryCarriesNoBenchmark: the benchmark harness stays out of
// the product binary (issue 26 item 2). internal/pgtest is still in it,
// through `sidecar demo`, whose throwaway cluster it starts.
func TestProductBinaryCarriesNoBenchmark(t *testing.T) {
	testenv.LookPath(t, "install Go (go.dev/dl) to list dependencies with", "go")
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/sidecar-dev/sidecar/bench" || strings.HasPrefix(p, "github.com/sidecar-dev/sidecar/bench/") ||
			strings.HasPrefix(p, "github.com/sidecar-dev/sidecar/internal/sqldiff") || p == "testing" {
			t.Errorf("cmd/sidecar depends on %s", p)
		}
	}
}
