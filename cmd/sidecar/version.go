package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/replication"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and the Go and PostgreSQL protocol versions supported",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rev := ""
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" && len(s.Value) >= 12 {
						rev = " (commit " + s.Value[:12] + ")"
					}
				}
			}
			fmt.Fprintf(g.stdout, "sidecar %s%s\n", version, rev)
			fmt.Fprintf(g.stdout, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
			fmt.Fprintf(g.stdout, "postgresql: servers %d and newer; logical replication via pgoutput proto_version %d (streaming of in-progress transactions)\n", replication.MinServerVersion/10000, replication.ProtocolVersion)
			return nil
		},
	}
}
