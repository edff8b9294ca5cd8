package sqlfront

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/types"
)

// The tz database the sidecar reads may not be the followed server's
// (another machine, another tzdata release): before a session uses a
// zone of the database, its offsets at sample instants — one second
// before and at each of the zone's transitions from 1800 to 2040 (at
// most 600), and 1 January and 1 July of every tenth year 1800–2100 —
// are compared with the server's for the same zone (Options.ZoneOffsets,
// a normal connection). The verdict is kept per zone for the server's
// life; a zone whose offsets differ, or that the server cannot be asked
// about, is refused with 0A000 naming it. Fixed offsets ('UTC+3',
// '-05:30', SET TIME ZONE 5) need no tz data and are not asked about.

// ZoneOffsetsFunc asks the followed server for zone's UTC offsets
// (seconds east) at instants (Unix seconds), in order.
type ZoneOffsetsFunc func(ctx context.Context, zone string, instants []int64) ([]int64, error)

// zoneVerdicts caches, per zone name, whether the server agreed.
type zoneVerdicts struct {
	mu sync.Mutex
	ok map[string]bool // true: agreed; false: differed (errors are not kept)
}

// zoneSamples are the instants zone z is compared at.
func zoneSamples(z *types.Zone) []int64 {
	loc := z.Location()
	var out []int64
	t := time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC).In(loc)
	end := time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC)
	for len(out) < 600 {
		_, next := t.ZoneBounds()
		if next.IsZero() || next.After(end) {
			break
		}
		out = append(out, next.Unix()-1, next.Unix())
		t = next.In(loc)
	}
	for y := 1800; y <= 2100; y += 10 {
		out = append(out, time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(y, 7, 1, 0, 0, 0, 0, time.UTC).Unix())
	}
	return out
}

// verifyZone refuses a tz database zone whose offsets the followed
// server does not confirm (see the file comment).
func (s *Server) verifyZone(ctx context.Context, z *types.Zone) error {
	if z.Fixed() {
		return nil
	}
	refuse := func(why string) error {
		return errf(codeUnsupported, -1, "TimeZone %q is not supported by sidecar's SQL front end: %s", z.Name, why).
			hint("a fixed offset such as 'UTC+3' or '-05:30' needs no time zone data")
	}
	s.zones.mu.Lock()
	ok, known := s.zones.ok[z.Name]
	s.zones.mu.Unlock()
	if known {
		if !ok {
			return refuse("its offsets in the sidecar's time zone data differ from the followed server's")
		}
		return nil
	}
	if s.opts.ZoneOffsets == nil {
		return refuse("the followed server cannot be asked whether its time zone data agrees")
	}
	samples := zoneSamples(z)
	theirs, err := s.opts.ZoneOffsets(ctx, z.Name, samples)
	if err != nil {
		return refuse(fmt.Sprintf("the followed server could not be asked whether its time zone data agrees (%v)", err))
	}
	agree := len(theirs) == len(samples)
	for i := 0; agree && i < len(samples); i++ {
		_, off := time.Unix(samples[i], 0).In(z.Location()).Zone()
		agree = int64(off) == theirs[i]
	}
	s.zones.mu.Lock()
	if s.zones.ok == nil {
		s.zones.ok = map[string]bool{}
	}
	s.zones.ok[z.Name] = agree
	s.zones.mu.Unlock()
	if !agree {
		return refuse("its offsets in the sidecar's time zone data differ from the followed server's")
	}
	return nil
}

// AskZoneOffsets asks the server conn is connected to for zone's
// offsets (seconds east) at instants (Unix seconds): the zone is set
// for one transaction, as a session's TimeZone (no abbreviations), and
// rolled back.
func AskZoneOffsets(ctx context.Context, conn *pgx.Conn, zone string, instants []int64) ([]int64, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(context.Background()) // read only: nothing to keep
	if _, err := tx.Exec(ctx, "SELECT set_config('TimeZone', $1, true)", zone); err != nil {
		return nil, fmt.Errorf("TimeZone %q: %w", zone, err)
	}
	rows, err := tx.Query(ctx, "SELECT extract(timezone FROM to_timestamp(s))::int8 FROM unnest($1::int8[]) WITH ORDINALITY u(s, n) ORDER BY n", instants)
	if err != nil {
		return nil, fmt.Errorf("offsets of %q: %w", zone, err)
	}
	defer rows.Close()
	out := make([]int64, 0, len(instants))
	for rows.Next() {
		var off int64
		if err := rows.Scan(&off); err != nil {
			return nil, fmt.Errorf("offsets of %q: %w", zone, err)
		}
		out = append(out, off)
	}
	return out, rows.Err()
}
