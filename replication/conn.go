package replication

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// SessionSettings are the GUCs pinned on every connection this package
// opens, the replication connection included (the walsender runs the
// output functions that render streamed values). They make text output
// deterministic: the copy, the stream and verify's checksums all see the
// same bytes for the same value.
var sessionSettings = [][2]string{
	{"DateStyle", "ISO"},
	{"IntervalStyle", "postgres"},
	{"extra_float_digits", "3"},
	{"TimeZone", "UTC"},
	{"client_encoding", "UTF8"},
	{"bytea_output", "hex"},
}

// SessionSettings returns the pinned GUCs, name → value, for the other
// packages that must render values the same way (verify/).
func SessionSettings() map[string]string {
	m := make(map[string]string, len(sessionSettings))
	for _, kv := range sessionSettings {
		m[kv[0]] = kv[1]
	}
	return m
}

// applySettings puts the pinned GUCs into a connection's startup
// parameters, replacing whatever the connection string said.
func applySettings(params map[string]string) {
	for k := range params {
		for _, kv := range sessionSettings {
			if strings.EqualFold(k, kv[0]) {
				delete(params, k)
			}
		}
	}
	for _, kv := range sessionSettings {
		params[kv[0]] = kv[1]
	}
}

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
	for _, kv := range sessionSettings {
		res, err := conn.Exec(ctx, "SHOW "+kv[0]).ReadAll()
		if err != nil {
			return fmt.Errorf("verify session setting %s: %w", kv[0], err)
		}
		if len(res) != 1 || len(res[0].Rows) != 1 || len(res[0].Rows[0]) != 1 {
			return fmt.Errorf("verify session setting %s: unexpected SHOW result", kv[0])
		}
		if got := string(res[0].Rows[0][0]); !settingOK(kv[0], kv[1], got) {
			return fmt.Errorf("session setting %s is %q, want %q: something overrides startup parameters (a connection pooler or ALTER ROLE/DATABASE SET)", kv[0], got, kv[1])
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
	applySettings(cfg.RuntimeParams)
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
	applySettings(cfg.RuntimeParams)
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

// SystemIdentity identifies the cluster and timeline a mirror follows.
// Persist SystemID and Timeline with the mirror and Check them on every
// start: LSNs and slots mean nothing on another cluster or timeline.
type SystemIdentity struct {
	SystemID string
	Timeline int32
	XLogPos  LSN // the server's flush position when asked (informational)
	DBName   string
}

// ErrSystemChanged is wrapped by [SystemIdentity.Check] errors.
var ErrSystemChanged = errors.New("replication source changed")

// Check compares s, just read from the server, with the identity stored
// with the mirror. A zero stored identity (a new mirror) matches anything.
func (s SystemIdentity) Check(stored SystemIdentity) error {
	if stored.SystemID == "" {
		return nil
	}
	if s.SystemID != stored.SystemID {
		return fmt.Errorf("%w: connected to PostgreSQL system %s, but the mirror follows system %s; point postgres.url at the right server, or start over with `sidecar run --resync`",
			ErrSystemChanged, s.SystemID, stored.SystemID)
	}
	if s.Timeline != stored.Timeline {
		return fmt.Errorf("%w: the server is on timeline %d, the mirror was built on timeline %d (a failover or point-in-time recovery happened; logical slots do not survive it); start over with `sidecar run --resync`",
			ErrSystemChanged, s.Timeline, stored.Timeline)
	}
	if stored.DBName != "" && s.DBName != stored.DBName {
		return fmt.Errorf("%w: connected to database %q, the mirror follows %q; fix postgres.url or start over with `sidecar run --resync`",
			ErrSystemChanged, s.DBName, stored.DBName)
	}
	return nil
}

// IdentifySystem runs IDENTIFY_SYSTEM on a replication connection.
func IdentifySystem(ctx context.Context, conn *pgconn.PgConn) (SystemIdentity, error) {
	r, err := pglogrepl.IdentifySystem(ctx, conn)
	if err != nil {
		return SystemIdentity{}, fmt.Errorf("IDENTIFY_SYSTEM: %w", err)
	}
	return SystemIdentity{SystemID: r.SystemID, Timeline: r.Timeline, XLogPos: LSN(r.XLogPos), DBName: r.DBName}, nil
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
