package main

import (
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/logging"
)

// globals are the flags every command shares.
type globals struct {
	configFile string
	flags      *pflag.FlagSet
	stdout     io.Writer
	stderr     io.Writer
}

// flagKeys maps persistent flags to the config keys they override.
var flagKeys = map[string]string{
	"url":        "postgres.url",
	"data-dir":   "data_dir",
	"listen":     "listen",
	"log-level":  "log.level",
	"log-format": "log.format",
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	g := &globals{stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "sidecar",
		Short: "A versioned, verifiable, fast-to-read mirror of PostgreSQL tables",
		Long: `sidecar follows a PostgreSQL server through logical replication and keeps a
versioned mirror of its tables: time travel to any commit, diff between
versions, merge and revert as SQL patches, verification against PostgreSQL at
one exact LSN, and fast reads that put no load on the primary.

Every command takes --config FILE (default $SIDECAR_CONFIG). Exit status: 0
success; 1 differences, conflicts or not ready (per command); 2 bad input or
could not run.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	pf := root.PersistentFlags()
	pf.StringVar(&g.configFile, "config", os.Getenv(config.EnvConfigFile), "config file (YAML); default $SIDECAR_CONFIG")
	pf.String("url", "", "PostgreSQL connection URL (overrides postgres.url)")
	pf.String("data-dir", "", "data directory (overrides data_dir)")
	pf.String("listen", "", "HTTP API address (overrides listen)")
	pf.String("log-level", "", "debug, info, warn or error (overrides log.level)")
	pf.String("log-format", "", "text or json (overrides log.format)")
	g.flags = pf

	root.AddCommand(
		newVersionCmd(g),
		newCheckCmd(g),
		newRunCmd(g),
		newServeCmd(g),
		newForkCmd(g),
		newStatusCmd(g),
		newLogCmd(g),
		newDiffCmd(g),
		newGetCmd(g),
		newScanCmd(g),
		newAggCmd(g),
		newTagCmd(g),
		newBranchCmd(g),
		newMergeCmd(g),
		newRevertCmd(g),
		newVerifyCmd(g),
		newResyncCmd(g),
		newGCCmd(g),
		newCompactCmd(g),
		newDemoCmd(g),
		newBenchCmd(g),
	)
	return root
}

// loadConfig reads the configuration for a command; errors exit 2.
func (g *globals) loadConfig() (*config.Config, *slog.Logger, error) {
	flags := map[string]*pflag.Flag{}
	for name, key := range flagKeys {
		flags[key] = g.flags.Lookup(name)
	}
	cfg, err := config.Load(config.LoadOptions{File: g.configFile, Flags: flags})
	if err != nil {
		hint := "sidecar check --config FILE (see examples/sidecar.yaml for every key)"
		if g.configFile == "" {
			hint = "pass --config FILE or set SIDECAR_CONFIG (see examples/sidecar.yaml)"
		}
		return nil, nil, usageError(err, hint)
	}
	logger, err := logging.New(g.stderr, cfg.Log.Level, cfg.Log.Format)
	if err != nil {
		return nil, nil, usageError(err, "")
	}
	for _, w := range cfg.Warnings {
		logger.Warn(w)
	}
	return cfg, logger, nil
}
