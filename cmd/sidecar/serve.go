package main

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/remote"
)

// errNoRemote: serve was given no remote to follow.
var errNoRemote = errors.New("serve: no remote history given")

func newServeCmd(g *globals) *cobra.Command {
	var remoteURL string
	var refresh time.Duration
	cmd := &cobra.Command{
		Use:   "serve --remote s3://bucket/prefix",
		Short: "A read-only follower of a remote history (no PostgreSQL connection)",
		Long: `serve follows the history another sidecar uploads (remote.upload) and serves
the read API from it: log, diff, get, scan, agg, tags and branches, on listen.
It never connects to PostgreSQL and never writes the remote. Its data_dir is
its own copy, brought forward whenever the manifest changes (read every
--refresh); remote.endpoint, remote.region and the credentials come from the
config and the environment as for run.

Commands given the follower's config (its listen and data_dir) read from it:
sidecar diff HEAD~10 HEAD --config follower.yaml.

Exit status: 0 on SIGINT/SIGTERM; 1 fatal error; 2 bad configuration.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, logger, err := g.loadConfig()
			if err != nil {
				return err
			}
			if remoteURL != "" {
				if _, err := remote.ParseURL(remoteURL); err != nil {
					return usageError(err, "--remote s3://bucket/prefix")
				}
				cfg.Remote.URL = remoteURL
			}
			if cfg.Remote.URL == "" {
				return usageError(errNoRemote, "--remote s3://bucket/prefix, or remote.url in the config")
			}
			err = daemon.Serve(cmd.Context(), daemon.ServeOptions{Config: cfg, Logger: logger, Refresh: refresh})
			if err != nil {
				return &exitError{code: exitFound, err: err, hint: "sidecar serve --remote s3://bucket/prefix --config FILE"}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&remoteURL, "remote", "", "the remote history to follow: s3://bucket/prefix (default remote.url)")
	cmd.Flags().DurationVar(&refresh, "refresh", 10*time.Second, "how often to read the remote manifest again")
	return cmd
}
