package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/remote"
)

// errNoFork: fork was not told where from or where to.
var errNoFork = errors.New("fork: needs --from and a destination")

func newForkCmd(g *globals) *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "fork --from s3://bucket/prefix [--to s3://bucket/other]",
		Short: "Start a new remote history from another sidecar's, sharing its packs",
		Long: `fork writes a manifest under --to (default remote.url) that names the packs
and commit-log segments of the history under --from, as of its manifest now:
nothing is copied (one read, one write), and content addressing shares every
node. Both prefixes must be in one bucket. A sidecar then serves the fork
(sidecar serve --remote TO) or restores it and writes it as its own
(sidecar run --from-remote with remote.url: TO), uploading only what it adds.
The origin's remote GC never deletes a pack the fork names. remote.endpoint,
remote.region and the credentials come from the config and the environment.

Exit status: 0 forked; 2 bad input, or the destination already holds a history.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, _, err := g.loadConfig()
			if err != nil {
				return err
			}
			if to == "" {
				to = cfg.Remote.URL
			}
			if from == "" || to == "" {
				return usageError(errNoFork, "sidecar fork --from s3://bucket/origin --to s3://bucket/fork")
			}
			src, err := forkClient(cfg, from)
			if err != nil {
				return usageError(fmt.Errorf("--from: %w", err), "--from s3://bucket/prefix")
			}
			dst, err := forkClient(cfg, to)
			if err != nil {
				return usageError(fmt.Errorf("--to: %w", err), "--to s3://bucket/prefix")
			}
			m, err := remote.Fork(cmd.Context(), src, dst)
			if err != nil {
				return usageError(err, "the destination must be a prefix with no history, in the origin's bucket")
			}
			fmt.Fprintf(cmd.OutOrStdout(), "forked %s into %s at %s (%d packs, %d segments shared, nothing copied)\n",
				from, to, m.Durable, len(m.Packs), len(m.Segments))
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the history to fork: s3://bucket/prefix")
	cmd.Flags().StringVar(&to, "to", "", "where the fork goes: s3://bucket/prefix (default remote.url)")
	return cmd
}

// forkClient is a client of url with cfg's endpoint, region and
// credentials.
func forkClient(cfg *config.Config, url string) (*remote.Client, error) {
	c := *cfg
	c.Remote.URL = url
	return daemon.RemoteClient(&c)
}
