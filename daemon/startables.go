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
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/wal"
)

// pollNewTables follows the tables "*" finds that are not followed yet.
func (d *daemon) pollNewTables(ctx context.Context, conn *pgx.Conn) error {
	if !d.allTables() || d.f == nil || d.f.Streamer() == nil {
		return nil
	}
	now := time.Now()
	st, err := replication.ResolveStarSkip(ctx, conn, d.cfg.Publication, true, func(t wal.TableName) bool {
		return d.addBackoff.waiting(t.String(), now)
	})
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
		next := d.addBackoff.failed(t.String(), msg, st.NotAddedCode[t], now)
		why[t.String()] = fmt.Sprintf("could not be added to publication %s (tried again %s): %s", d.cfg.Publication, next, msg)
	}
	for _, t := range st.Deferred {
		msg, next := d.addBackoff.last(t.String())
		why[t.String()] = fmt.Sprintf("could not be added to publication %s (tried again %s): %s", d.cfg.Publication, next, msg)
	}
	d.addBackoff.forget(func(name string) bool { _, ok := why[name]; return ok })
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

// addBackoff spaces out the attempts to add a table to the sidecar's
// publication that failed: a role that does not own the table (42501)
// fails, with an error in PostgreSQL's log, every time until someone
// changes the owner, so it is tried again after a minute, then after
// twice as long each time, up to an hour; a lock held on the table
// (55P03: a migration) is tried again at the next poll.
type addBackoff struct {
	mu sync.Mutex
	m  map[string]*addFailure
}

type addFailure struct {
	msg      string
	failures int
	next     time.Time
}

// Bounds of the pause before a failed table is tried again.
const (
	addRetryFirst = time.Minute
	addRetryMax   = time.Hour
)

// waiting reports whether table failed and its next attempt is later.
func (b *addBackoff) waiting(table string, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.m[table]
	return f != nil && now.Before(f.next)
}

// failed records a failed attempt and says when the next one is.
func (b *addBackoff) failed(table, msg, code string, now time.Time) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]*addFailure{}
	}
	f := b.m[table]
	if f == nil {
		f = &addFailure{}
		b.m[table] = f
	}
	f.msg = msg
	if code == "55P03" {
		f.next = time.Time{}
		return "at every poll"
	}
	pause := addRetryFirst << min(f.failures, 6)
	f.failures++
	f.next = now.Add(min(pause, addRetryMax))
	return "after " + f.next.UTC().Format(time.RFC3339)
}

// last is the failure recorded for table and when it is tried again.
func (b *addBackoff) last(table string) (msg, next string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.m[table]
	if f == nil {
		return "", "at the next poll"
	}
	return f.msg, "after " + f.next.UTC().Format(time.RFC3339)
}

// forget drops the tables keep does not name (added since, or gone).
func (b *addBackoff) forget(keep func(string) bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for n := range b.m {
		if !keep(n) {
			delete(b.m, n)
		}
	}
}
