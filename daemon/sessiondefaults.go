package daemon

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/sqlfront"
)

// A psql session of PostgreSQL starts at the server's TimeZone,
// DateStyle and IntervalStyle; the SQL front end's sessions start at the
// followed server's too (sqlfront/serverdefaults.go). The daemon reads
// them over a plain connection — not replication.Connect, which pins
// TimeZone to UTC in the startup packet — at start and then every
// sessionDefaultsEvery, so an ALTER SYSTEM SET timezone and a reload
// reach new sessions within that time.

// sessionDefaultsEvery is how often the monitor reads them again.
const sessionDefaultsEvery = 30 * time.Second

// serverDefaults holds the last values read (the monitor writes, every
// new SQL session reads).
type serverDefaults struct {
	mu   sync.Mutex
	v    sqlfront.SessionDefaults
	read time.Time // zero: never read
}

// get is a new session's defaults (zero values before the first read:
// sidecar's own).
func (s *serverDefaults) get() sqlfront.SessionDefaults {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.v
}

// due says whether the values should be read again.
func (s *serverDefaults) due(now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read.IsZero() || now.Sub(s.read) >= sessionDefaultsEvery
}

// readSessionDefaults reads the followed server's session defaults as a
// plain connection of the follow user to the followed database sees
// them, and keeps them for new SQL sessions.
func (d *daemon) readSessionDefaults(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	cfg, err := pgx.ParseConfig(d.conn)
	if err != nil {
		return fmt.Errorf("session defaults: parse connection string: %w", err)
	}
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "sidecar"
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("session defaults: connect: %w", err)
	}
	defer conn.Close(context.Background())
	var v sqlfront.SessionDefaults
	if err := conn.QueryRow(ctx, "SELECT current_setting('TimeZone'), current_setting('DateStyle'), current_setting('IntervalStyle'), current_setting('lc_monetary')").
		Scan(&v.TimeZone, &v.DateStyle, &v.IntervalStyle, &v.LcMonetary); err != nil {
		return fmt.Errorf("session defaults: %w", err)
	}
	if v.Settings, err = readServerSettings(ctx, conn); err != nil {
		return err
	}
	d.sessionDefaults.mu.Lock()
	changed := !d.sessionDefaults.read.IsZero() && !sameDefaults(d.sessionDefaults.v, v) // serversettings.go
	d.sessionDefaults.v, d.sessionDefaults.read = v, time.Now()
	d.sessionDefaults.mu.Unlock()
	if changed {
		d.log.Info("the followed server's session defaults changed; new SQL sessions start from them",
			"timezone", v.TimeZone, "datestyle", v.DateStyle, "intervalstyle", v.IntervalStyle)
	}
	return nil
}
