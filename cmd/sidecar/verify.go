package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/client"
	"github.com/sidecar-dev/sidecar/server"
	"github.com/sidecar-dev/sidecar/verify"
)

func newVerifyCmd(g *globals) *cobra.Command {
	var (
		tables      []string
		format      string
		pinTimeout  time.Duration
		waitTimeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "verify [--table T]... [--format text|json]",
		Short: "Prove the mirror equals PostgreSQL at one exact LSN; name the differing rows",
		Long: `verify pins PostgreSQL at one exact WAL position C (a temporary logical slot's
snapshot), waits until the mirror has applied every commit up to C, and
compares each table's rows at that version through bucketed checksums
(count and sum of a 64-bit row hash); for differing buckets it names the
keys, with the mirror's and PostgreSQL's rows (missing, extra, changed).

When a daemon runs, the verification runs inside it (POST /api/verify),
beside the stream that lets the mirror catch up to C. With no daemon the
data directory is opened here: the mirror cannot catch up, so it is
compared only if no transaction of the publication committed after its
last commit (checked by peeking at the slot), and otherwise verify exits 2.

Exit status: 0 every table equal; 1 differences found; 2 could not verify.`,
		Example: `  sidecar verify
  sidecar verify --table public.accounts --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return usageError(fmt.Errorf("--format %q: want text or json", format), "sidecar verify --format json")
			}
			cfg, logger, err := g.loadConfig()
			if err != nil {
				return err
			}
			names := append([]string(nil), tables...)
			if err := tableArgs(names); err != nil {
				return err
			}
			ctx := cmd.Context()
			conn, err := client.Connect(ctx, cfg, logger)
			if err != nil {
				return usageError(err, "sidecar run --config FILE")
			}
			defer conn.Close()
			var rep *verify.Report
			if conn.Daemon != nil {
				rep = &verify.Report{}
				if err := conn.Daemon.PostJSON(ctx, "/api/verify", server.VerifyRequest{Tables: names}, rep); err != nil {
					return usageError(err, verifyHint(err))
				}
			} else {
				r := &verify.Runner{
					ConnString:     cfg.Postgres.ConnString(),
					Mirror:         conn.Local.Mirror,
					Publication:    cfg.Publication,
					Slot:           cfg.Slot,
					CatchUpTimeout: waitTimeout,
					Pin:            verify.PinOptions{Timeout: pinTimeout},
					Logger:         logger,
				}
				if rep, err = r.Run(ctx, names); err != nil {
					return usageError(err, verifyHint(err))
				}
			}
			if format == "json" {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else if err := rep.WriteText(g.stdout); err != nil {
				return err
			}
			if code := rep.ExitCode(); code != exitOK {
				return silentExit(code)
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&tables, "table", nil, "table to verify (schema.name, quoted as in SQL where needed; repeatable); default every followed table")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().DurationVar(&pinTimeout, "pin-timeout", verify.DefaultPinTimeout, "give up pinning PostgreSQL after this long (slot creation waits for open write transactions)")
	cmd.Flags().DurationVar(&waitTimeout, "wait", verify.DefaultCatchUpTimeout, "give up waiting for the mirror to reach the pinned LSN after this long")
	return cmd
}

// verifyHint suggests the next step for a verification that could not run.
func verifyHint(err error) string {
	var apiErr *client.APIError
	switch {
	case errors.Is(err, verify.ErrPinTimeout):
		return "end or commit the transactions named above, or pass --pin-timeout 2m"
	case errors.Is(err, verify.ErrMirrorBehind):
		return "sidecar status (is the daemon running and connected?)"
	case errors.As(err, &apiErr) && apiErr.Status == 404 && strings.Contains(apiErr.Message, "no API endpoint"):
		return "this daemon predates POST /api/verify: stop it and run sidecar verify against the data directory, or upgrade it"
	}
	return ""
}
