package daemon

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/sqlfront"
)

// readServerSettings reads every parameter's value as a plain connection
// of the follow user sees it (lower-case name → SHOW's text): what the SQL
// front end's SHOW, current_setting and pg_settings print of a parameter
// a session never SET (sqlfront/settings_params.go). Read with the
// session defaults, at start and every sessionDefaultsEvery — never per
// statement. Parameters the follow user may not read (superuser-only
// ones) are not listed by pg_settings, and so not known.
func readServerSettings(ctx context.Context, conn *pgx.Conn) (map[string]string, error) {
	rows, err := conn.Query(ctx, "SELECT name, current_setting(name) FROM pg_settings")
	if err != nil {
		return nil, fmt.Errorf("session defaults: read pg_settings: %w", err)
	}
	out := map[string]string{}
	for rows.Next() {
		var name, v string
		if err := rows.Scan(&name, &v); err != nil {
			return nil, fmt.Errorf("session defaults: read pg_settings: %w", err)
		}
		out[strings.ToLower(name)] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("session defaults: read pg_settings: %w", err)
	}
	return out, nil
}

// sameDefaults says whether a and b have the same TimeZone, DateStyle,
// IntervalStyle and lc_monetary (the changes logged; Settings aside).
func sameDefaults(a, b sqlfront.SessionDefaults) bool {
	return a.TimeZone == b.TimeZone && a.DateStyle == b.DateStyle && a.IntervalStyle == b.IntervalStyle && a.LcMonetary == b.LcMonetary
}
