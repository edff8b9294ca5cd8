package daemon

import (
	"context"
	"fmt"

	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/sqlfront"
)

// zoneOffsets asks the followed server for zone's offsets (seconds
// east) at instants (Unix seconds), over a normal connection: the SQL
// front end compares them with its own tz data before a session uses
// the zone (sqlfront/timezone_verify.go).
func (d *daemon) zoneOffsets(ctx context.Context, zone string, instants []int64) ([]int64, error) {
	conn, err := replication.Connect(ctx, d.conn)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	return sqlfront.AskZoneOffsets(ctx, conn, zone, instants)
}
