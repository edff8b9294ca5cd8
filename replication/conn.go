package replication

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// settingOK reports whether SHOW's output for a pinned setting is what we
// asked for (DateStyle shows as "ISO, MDY").
func settingOK(name, want, got string) bool {
	if name == "DateStyle" {
		return strings.HasPrefix(got, want+",") || got == want
	}
	return got == want
}

// verifySettings checks, with SHOW (accepted by walsenders too), that every
// pinned setting took effect: a pooler or a role/database default could
// override startup parameters.
func verifySettings(ctx context.Context, conn *pgconn.PgConn) error {
	pinned := rowenc.SessionParams()
	for _, name := range slices.Sorted(maps.Keys(pinned)) {
		want := pinned[name]
		res, err := conn.Exec(ctx, "SHOW "+name).ReadAll()
		if err != nil {
			return fmt.Errorf("verify session setting %s: %w", name, err)
		}
		if len(res) != 1 || len(res[0].Rows) != 1 || len(res[0].Rows[0]) != 1 {
			return fmt.Errorf("verify session setting %s: unexpected SHOW result", name)
		}
		if got := string(res[0].Rows[0][0]); !settingOK(name, want, got) {
			return fmt.Errorf("session setting %s is %q, want %q: something overrides startup parameters (a connection pooler or ALTER ROLE/DATABASE SET)", name, got, want)
		}
	}
	return nil
}

// ConnectReplication opens a logical replication connection
// (replication=database) with the pinned session settings, verified. The
// caller must Close it.
func ConnectReplication(ctx context.Context, connString string) (*pgconn.PgConn, error) {
	cfg, err := pgconn.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("parse connection string: %w", err)
	}
	rowenc.PinSession(cfg.RuntimeParams)
	cfg.RuntimeParams["replication"] = "database"
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "sidecar"
	}
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open replication connection: %w", err)
	}
	if err := verifySettings(ctx, conn); err != nil {
		closeConn(conn)
		return nil, err
	}
	return conn, nil
}

// Connect opens an ordinary connection with the pinned session settings,
// verified. The caller must Close it.
func Connect(ctx context.Context, connString string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("parse connection string: %w", err)
	}
	rowenc.PinSession(cfg.RuntimeParams)
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "sidecar"
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if err := verifySettings(ctx, conn.PgConn()); err != nil {
		closeConn(conn)
		return nil, err
	}
	return conn, nil
}

// closeTimeout bounds the goodbye to a server that may be gone.
const closeTimeout = 5 * time.Second

// closeConn closes an ordinary or replication connection, bounded by
// closeTimeout: a dead peer must not hang the caller.
func closeConn(c interface{ Close(context.Context) error }) {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	_ = c.Close(ctx) // nothing to do about a failed goodbye
}

// IdentifySystem runs IDENTIFY_SYSTEM on a replication connection.
func IdentifySystem(ctx context.Context, conn *pgconn.PgConn) (wal.SystemIdentity, error) {
	r, err := pglogrepl.IdentifySystem(ctx, conn)
	if err != nil {
		return wal.SystemIdentity{}, fmt.Errorf("IDENTIFY_SYSTEM: %w", err)
	}
	return wal.SystemIdentity{SystemID: r.SystemID, Timeline: r.Timeline, XLogPos: wal.LSN(r.XLogPos), DBName: r.DBName}, nil
}

// simpleQuery runs one statement with the simple protocol (the only one a
// replication connection speaks) and returns its rows as strings; NULL is
// returned as "" with null[i][j] set.
func simpleQuery(ctx context.Context, conn *pgconn.PgConn, sql string) (rows [][]string, null [][]bool, err error) {
	res, err := conn.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, nil, err
	}
	if len(res) == 0 {
		return nil, nil, nil
	}
	for _, r := range res[len(res)-1].Rows {
		row := make([]string, len(r))
		nl := make([]bool, len(r))
		for i, v := range r {
			row[i], nl[i] = string(v), v == nil
		}
		rows = append(rows, row)
		null = append(null, nl)
	}
	return rows, null, nil
}
