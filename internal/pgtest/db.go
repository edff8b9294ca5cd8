package pgtest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// TB is the part of testing.TB that the helpers use. It is an interface so
// that this package need not import "testing" (`sidecar demo` links it into
// the real binary); testing.TB satisfies it.
type TB interface {
	Helper()
	Name() string
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// adminTimeout bounds the administrative statements of NewDB and its cleanup.
const adminTimeout = 30 * time.Second

// CreateDB creates database name (any name: it is quoted) and returns its
// superuser URL.
func (c *Cluster) CreateDB(ctx context.Context, name string) (string, error) {
	stmt := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize()
	if c.verNum >= 150000 {
		// FILE_COPY copies template1's files after a checkpoint, which is
		// cheap with fsync=off; the default WAL_LOG strategy writes every page
		// to WAL and took twice as long (270 ms against 140 ms a database on
		// PostgreSQL 15, measured in this harness).
		stmt += " STRATEGY FILE_COPY"
	}
	err := c.admin(ctx, func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, stmt)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("pgtest: create database %q: %w", name, err)
	}
	return c.URL(name), nil
}

// DropDB drops database name after ending what would keep it alive: its
// replication slots (whose walsenders are terminated first) and its
// sessions. Dropping a missing database is not an error.
func (c *Cluster) DropDB(ctx context.Context, name string) error {
	err := c.admin(ctx, func(conn *pgx.Conn) error {
		if err := dropSlots(ctx, conn, name); err != nil {
			return err
		}
		// WITH (FORCE) (PostgreSQL 13+) terminates the remaining sessions.
		_, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
		return err
	})
	if err != nil {
		return fmt.Errorf("pgtest: drop database %q: %w", name, err)
	}
	return nil
}

// dropSlots drops every replication slot of database db. An active slot is
// released when its walsender exits, which happens shortly after it is
// terminated; so terminate and retry until the slots are gone or ctx ends.
func dropSlots(ctx context.Context, conn *pgx.Conn, db string) error {
	for {
		rows, err := conn.Query(ctx,
			`SELECT slot_name, active_pid FROM pg_replication_slots WHERE database = $1`, db)
		if err != nil {
			return fmt.Errorf("list slots: %w", err)
		}
		type slot struct {
			name string
			pid  *int32
		}
		slots, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (slot, error) {
			var s slot
			err := r.Scan(&s.name, &s.pid)
			return s, err
		})
		if err != nil {
			return fmt.Errorf("list slots: %w", err)
		}
		if len(slots) == 0 {
			return nil
		}
		busy := false
		for _, s := range slots {
			if s.pid != nil {
				busy = true
				if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend($1)`, *s.pid); err != nil {
					return fmt.Errorf("terminate walsender %d of slot %s: %w", *s.pid, s.name, err)
				}
				continue
			}
			// A slot can become active or vanish between the query and the
			// drop; the next round sorts that out.
			_, _ = conn.Exec(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND active_pid IS NULL`, s.name)
		}
		if busy {
			select {
			case <-ctx.Done():
				return fmt.Errorf("drop slots of %s: %w", db, ctx.Err())
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}

// admin runs fn on a fresh superuser connection to database "postgres".
func (c *Cluster) admin(ctx context.Context, fn func(*pgx.Conn) error) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return fn(conn)
}

// NewDB creates a fresh database named after the test (sanitised and made
// unique) and returns its superuser URL. At the test's cleanup it terminates
// the database's sessions, drops its replication slots and drops it, so a
// test that leaves a walsender or a slot behind does not leak into the next.
func (c *Cluster) NewDB(t TB) string {
	t.Helper()
	name := dbName(t.Name(), c.dbSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
	defer cancel()
	url, err := c.CreateDB(ctx, name)
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
		defer cancel()
		if err := c.DropDB(ctx, name); err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("%v", err)
		}
	})
	return url
}

// maxDBName is PostgreSQL's identifier limit (NAMEDATALEN-1 bytes).
const maxDBName = 63

// dbName turns a test name into a database name: lower case, [a-z0-9_] only,
// with a sequence number that makes it unique within the cluster, at most 63
// bytes.
func dbName(testName string, seq uint64) string {
	var b strings.Builder
	b.WriteString("t_")
	lastUnderscore := true
	for _, r := range strings.ToLower(testName) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			lastUnderscore = false
		} else if !lastUnderscore {
			b.WriteByte('_')
			lastUnderscore = true
		}
	}
	suffix := "_" + strconv.FormatUint(seq, 10)
	base := strings.TrimRight(b.String(), "_")
	if len(base)+len(suffix) > maxDBName {
		base = strings.TrimRight(base[:maxDBName-len(suffix)], "_")
	}
	return base + suffix
}
