package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
)

// StartStandby starts a streaming physical standby (hot standby) of c, for
// tests of following a replica (logical decoding on a standby needs
// PostgreSQL 16). The standby is a copy of c's data directory taken while
// c is briefly shut down (a clean shutdown checkpoint, so no base backup
// tool is needed: the server packages of other majors ship none), with
// standby.signal, primary_conninfo to c and a physical slot on c that keeps
// the WAL it still needs. c's sessions are ended by that restart, as by
// Restart. StartStandby returns once the standby streams from c.
//
// The standby is read-only: NewDB does not work on it; create databases and
// tables on c and connect to the standby with its URL. The caller must Stop
// it (before or after c).
func (c *Cluster) StartStandby(ctx context.Context) (*Cluster, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 2*defaultWait)
		defer cancel()
	}
	n := c.dbSeq.Add(1)
	slot := fmt.Sprintf("pgtest_standby_%d", n)
	err := c.admin(ctx, func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "SELECT pg_create_physical_replication_slot($1, true)", slot)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("pgtest: standby: physical slot: %w", err)
	}
	s := &Cluster{binDir: c.binDir, as: c.as, logf: c.logf, verNum: c.verNum, verStr: c.verStr}
	if s.dir, err = os.MkdirTemp(tempBase(c.as), dirPrefix); err != nil {
		return nil, fmt.Errorf("pgtest: standby: create dir: %w", err)
	}
	if err := c.cloneInto(ctx, s, slot); err != nil {
		_ = s.Stop()
		return nil, fmt.Errorf("pgtest: standby: %w", err)
	}
	if err := s.waitStreaming(ctx); err != nil {
		_ = s.Stop()
		return nil, fmt.Errorf("pgtest: standby: %w\nstandby log:\n%s", err, s.ServerLog())
	}
	c.logf("pgtest: standby of port %d started on 127.0.0.1:%d in %s", c.port, s.port, s.dir)
	return s, nil
}

// cloneInto shuts c down, copies its data directory into s, starts c
// again and then s as its standby.
func (c *Cluster) cloneInto(ctx context.Context, s *Cluster, slot string) error {
	sock, err := s.prepareDir()
	if err != nil {
		return err
	}
	data := filepath.Join(s.dir, "data")
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return fmt.Errorf("cluster on port %d is stopped", c.port)
	}
	err = c.shutdown()
	if err == nil {
		// cp -a keeps modes and (as root) the postgres user's ownership.
		var out []byte
		if out, err = exec.CommandContext(ctx, "cp", "-a", filepath.Join(c.dir, "data"), data).CombinedOutput(); err != nil {
			err = fmt.Errorf("copy data directory: %w: %s", err, out)
		}
	}
	if rerr := c.startServer(ctx, filepath.Join(c.dir, "data"), c.port); rerr != nil && err == nil {
		err = fmt.Errorf("restart primary: %w", rerr)
	}
	c.mu.Unlock()
	if err != nil {
		return err
	}
	// The primary's slots are its own (pg_basebackup leaves them out too):
	// a copy would hold WAL on the standby for nobody.
	slots, err := filepath.Glob(filepath.Join(data, "pg_replslot", "*"))
	if err != nil {
		return err
	}
	for _, p := range slots {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("remove the primary's slot from the copy: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(data, "standby.signal"), nil, 0o600); err != nil {
		return fmt.Errorf("write standby.signal: %w", err)
	}
	if err := s.as.chown(filepath.Join(data, "standby.signal")); err != nil {
		return err
	}
	err = appendConf(filepath.Join(data, "postgresql.conf"), [][2]string{
		{"unix_socket_directories", sock},
		{"primary_conninfo", fmt.Sprintf("host=127.0.0.1 port=%d user=postgres application_name=pgtest_standby", c.port)},
		{"primary_slot_name", slot},
		{"hot_standby", "on"},
		// Logical slots on the standby need the primary to keep the rows
		// their catalog snapshots see.
		{"hot_standby_feedback", "on"},
	})
	if err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	return s.startServer(ctx, data, port)
}

// waitStreaming waits until the standby's WAL receiver streams.
func (c *Cluster) waitStreaming(ctx context.Context) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		var status string
		err := c.admin(ctx, func(conn *pgx.Conn) error {
			return conn.QueryRow(ctx, "SELECT coalesce((SELECT status FROM pg_stat_wal_receiver), 'none')").Scan(&status)
		})
		if err == nil && status == "streaming" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not streaming (wal receiver %q, %v): %w", status, err, ctx.Err())
		case <-tick.C:
		}
	}
}

// LogStandbySnapshots calls pg_log_standby_snapshot() on c (a primary,
// PostgreSQL 16 or newer) every 50 ms until stop is called, which returns
// the first error. Creating a logical slot on a standby waits for the
// primary to log its running transactions, which it does by itself only
// every 15 s; tests of slots on a standby run this meanwhile. On an older
// server it does nothing.
func (c *Cluster) LogStandbySnapshots() (stop func() error) {
	if c.verNum < 160000 {
		return func() error { return nil }
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- c.admin(ctx, func(conn *pgx.Conn) error {
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				if _, err := conn.Exec(ctx, "SELECT pg_log_standby_snapshot()"); err != nil && ctx.Err() == nil {
					return fmt.Errorf("pg_log_standby_snapshot: %w", err)
				}
				select {
				case <-ctx.Done():
					return nil
				case <-tick.C:
				}
			}
		})
	}()
	return func() error {
		cancel()
		err := <-done
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
}
