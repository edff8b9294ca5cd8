package wal

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testenv"
)

// TestLeaf checks that the storage half of the sidecar does not depend on a
// PostgreSQL client: neither pgx, pgconn nor pglogrepl, nor package
// replication which wraps them, is among the dependencies of the packages
// that only speak this package's vocabulary (issue 12, item 3).
func TestLeaf(t *testing.T) {
	gobin := testenv.LookPath(t, "install Go (go.dev/dl) to list dependencies with", "go")
	const module = "github.com/sidecar-dev/sidecar/"
	forbidden := []string{"github.com/jackc/pgx", "github.com/jackc/pglogrepl", "github.com/jackc/pgconn", module + "replication"}
	for _, pkg := range []string{"wal", "mirror", "refs", "prolly", "store", "rowenc"} {
		out, err := exec.CommandContext(t.Context(), gobin, "list", "-deps", module+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}
