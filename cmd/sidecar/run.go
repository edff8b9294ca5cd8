package main

import (
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/wal"
)

func newRunCmd(g *globals) *cobra.Command {
	var resync, fromRemote bool
	cmd := &cobra.Command{
		Use:   "run",
		Short: "The daemon: initial copy if needed, then stream, apply and serve",
		Long: `run follows the configured tables: preflight, then (first start) the
publication, the slot and the initial copy under the slot's snapshot, then
streaming. It serves /healthz, /readyz, /metrics and the API on listen.

The first SIGINT or SIGTERM finishes the current transaction, syncs, advances
the slot to exactly what is durable, and exits 0; a second one aborts at once.

--resync starts over: it removes the mirror from data_dir, drops the slot and
copies every table again (after a lost slot, or a server replaced).

run refuses, and names the slot and --resync, when data_dir holds no mirror
but the slot exists (the slot is another data directory's: an unmounted
volume, a mistyped data_dir), and when the mirror is behind its slot's
confirmed_flush_lsn (another data directory moved the slot on: the changes
between are not in the slot any more).

Exit status: 0 clean shutdown; 1 fatal error; 2 bad configuration.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, logger, err := g.loadConfig()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			// A second signal aborts the graceful shutdown.
			done := make(chan struct{})
			defer close(done)
			go func() {
				select {
				case <-ctx.Done():
				case <-done:
					return
				}
				sig := make(chan os.Signal, 1)
				signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
				defer signal.Stop(sig)
				select {
				case s := <-sig:
					logger.Error("second signal: aborting without waiting", "signal", s.String())
					os.Exit(exitFound)
				case <-done:
				}
			}()
			err = daemon.Run(ctx, daemon.Options{Config: cfg, Logger: logger, Progress: g.stderr, Resync: resync, FromRemote: fromRemote})
			if err == nil {
				return nil
			}
			hint := "sidecar check --config FILE"
			if errors.Is(err, replication.ErrSlotLost) || errors.Is(err, wal.ErrSystemChanged) || errors.Is(err, daemon.ErrForeignSlot) {
				hint = "sidecar run --resync --config FILE"
			}
			return &exitError{code: exitFound, err: err, hint: hint}
		},
	}
	cmd.Flags().BoolVar(&resync, "resync", false, "start over: remove the mirror, drop the slot, copy every table again")
	cmd.Flags().BoolVar(&fromRemote, "from-remote", false, "restore an empty data_dir from remote.url (tags, branches, versions), then follow")
	return cmd
}
