package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/replication"
)

// version and commit are set at build time (scripts/release, the
// Dockerfile): -ldflags "-X main.version=v1.2.3 -X main.commit=<sha>".
// Without them, commit comes from the Go toolchain's VCS stamp (a
// go build or go install in a git checkout).
var (
	version = "dev"
	commit  = ""
)

// buildCommit names the commit the binary was built from: the -X value,
// else the toolchain's vcs.revision (with "-dirty" for uncommitted
// changes), else "".
func buildCommit(bi *debug.BuildInfo) string {
	if commit != "" {
		return commit
	}
	if bi == nil {
		return ""
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and commit, and the Go and PostgreSQL protocol versions supported",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi, _ := debug.ReadBuildInfo()
			c := buildCommit(bi)
			if c == "" {
				c = "unknown (built without VCS information; scripts/release stamps it)"
			}
			fmt.Fprintf(g.stdout, "sidecar %s\ncommit: %s\n", version, c)
			fmt.Fprintf(g.stdout, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
			fmt.Fprintf(g.stdout, "postgresql: servers %d and newer; logical replication via pgoutput proto_version %d (streaming of in-progress transactions)\n", replication.MinServerVersion/10000, replication.ProtocolVersion)
			return nil
		},
	}
}
