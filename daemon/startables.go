// Tables created later (issue 21): with tables ["*"] the monitor's
// catalog poll (every 2 s) reads what "*" follows now
// (replication.ResolveStar: adding new tables to the sidecar's own
// publication first) and hands it to the follower, which restarts the
// stream, holds the new tables' changes and copies them under a fresh
// snapshot (follow.TablesAppeared). A table created while the daemon was
// down is picked up by the first poll once the stream runs. Tables "*"
// cannot follow (no key, no column, not in a publication the user made)
// are logged once and listed in status as not followed.

package daemon

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/wal"
)

// pollNewTables follows the tables "*" finds that are not followed yet.
func (d *daemon) pollNewTables(ctx context.Context, conn *pgx.Conn) error {
	if !d.allTables() || d.f == nil || d.f.Streamer() == nil {
		return nil
	}
	st, err := replication.ResolveStar(ctx, conn, d.cfg.Publication, true)
	if err != nil {
		return fmt.Errorf("poll tables for tables [\"*\"]: %w", err)
	}
	for _, t := range st.Added {
		d.log.Info("new table added to the sidecar's publication (tables [\"*\"])", "table", t.String(), "publication", d.cfg.Publication)
	}
	why := map[string]string{}
	for _, t := range st.WithoutKey {
		why[t.String()] = reasonNoKey
	}
	for _, t := range st.WithoutColumns {
		why[t.String()] = reasonNoColumns
	}
	for _, t := range st.Unpublished {
		why[t.String()] = fmt.Sprintf("not in publication %s, which the sidecar did not create (ALTER PUBLICATION %s ADD TABLE %s to follow it)",
			d.cfg.Publication, wal.QuoteIdent(d.cfg.Publication), t.Quoted())
	}
	for t, msg := range st.NotAdded {
		why[t.String()] = fmt.Sprintf("could not be added to publication %s (tried again every poll): %s", d.cfg.Publication, msg)
	}
	d.noteNotFollowed(why)
	added, err := d.f.TablesAppeared(ctx, st.Followable)
	if err != nil {
		return err
	}
	d.mu.Lock()
	for _, n := range added {
		delete(d.notFollow, n)
	}
	d.mu.Unlock()
	return nil
}

// noteNotFollowed records the tables "*" does not follow now and why,
// logging each the first time (or when its reason changes); a table no
// longer listed (followed now, or gone) is forgotten.
func (d *daemon) noteNotFollowed(why map[string]string) {
	d.mu.Lock()
	var fresh []string
	for t, r := range why {
		if d.notFollow[t] != r {
			fresh = append(fresh, t)
		}
	}
	d.notFollow = why
	d.mu.Unlock()
	for _, t := range fresh {
		d.log.Warn("table not followed (tables [\"*\"])", "table", t, "reason", why[t])
	}
}
