package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/client"
	"github.com/sidecar-dev/sidecar/preflight"
)

func newCheckCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Preflight: is PostgreSQL ready to be followed? Each problem with its fix",
		Long: `check connects with the configured URL and reports, one line each with the
fix: server version, wal_level, free replication slots and WAL senders, the
role's replication privilege, each configured table and its key, and whether
the publication and slot exist. sidecar run performs the same checks first.

Exit status: 0 ready; 2 not ready or the configuration is invalid.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return usageError(fmt.Errorf("--format %q: want text or json", format), "sidecar check --format json")
			}
			cfg, _, err := g.loadConfig()
			if err != nil {
				return err
			}
			report := preflight.Run(cmd.Context(), preflight.Params{
				URL:         cfg.Postgres.ConnString(),
				Tables:      cfg.Tables,
				Publication: cfg.Publication,
				Slot:        cfg.Slot,
				OwnDaemon:   ownDaemon(cmd.Context(), cfg.Listen),
			})
			if format == "json" {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(report); err != nil {
					return usageError(fmt.Errorf("write report: %w", err), "")
				}
			} else if err := report.WriteText(g.stdout); err != nil {
				return usageError(fmt.Errorf("write report: %w", err), "")
			}
			if !report.Ready() {
				return silentExit(exitUsage)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

// ownDaemon returns listen when this configuration's daemon answers its
// /healthz there (within 2 s), else "": check then knows a sidecar
// holding the slot is that daemon, not one to stop.
func ownDaemon(ctx context.Context, listen string) string {
	if listen == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, client.NewDaemon(listen, "").Base()+"/healthz", nil)
	if err != nil {
		return ""
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ""
	}
	return listen
}
