// Dropped tables (issue 21 item 9): a followed table dropped in
// PostgreSQL. pgoutput sends nothing for a DROP TABLE (the table simply
// leaves the publication), so the daemon asks the catalog: the monitor
// looks every table the mirror holds up by name at each poll (every 2 s,
// one query). A table found missing is logged at once, shown as
// "dropped" in status and in sidecar_table_dropped, left out of periodic
// and whole-mirror verification, and its history stays readable; the
// other tables are followed as before. On a restart preflight reports it
// as a warning once the mirror is open and knows it (preflightAgain).

package daemon

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sidecar-dev/sidecar/verify"
	"github.com/sidecar-dev/sidecar/wal"
)

// droppedState is the daemon's record of dropped tables (under daemon.mu).
type droppedState struct {
	at    map[string]time.Time // canonical name → when it was found missing
	gauge *prometheus.GaugeVec
}

// registerDropped adds sidecar_table_dropped to the daemon's metrics.
func (d *daemon) registerDropped() {
	d.dropped.gauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sidecar_table_dropped",
		Help: "1 for a followed table that was dropped in PostgreSQL (its history stays readable; it receives no changes)."}, []string{"table"})
	d.met.Registry.MustRegister(d.dropped.gauge)
}

// markDropped records that table no longer exists in PostgreSQL; how
// says how it was found. It logs the first time only.
func (d *daemon) markDropped(table, how string) {
	d.mu.Lock()
	if d.dropped.at == nil {
		d.dropped.at = map[string]time.Time{}
	}
	_, seen := d.dropped.at[table]
	if !seen {
		d.dropped.at[table] = time.Now()
	}
	d.mu.Unlock()
	if seen {
		return
	}
	if d.dropped.gauge != nil {
		d.dropped.gauge.WithLabelValues(table).Set(1)
	}
	if d.log == nil { // OfflineStatus: reported, not logged
		return
	}
	d.log.Warn("followed table dropped in PostgreSQL: it receives no more changes; its history stays readable and the other tables are followed (remove it from tables in the config once its history is no longer needed)",
		"table", table, "found", how)
}

// isDropped reports whether table was found dropped.
func (d *daemon) isDropped(table string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.dropped.at[table]
	return ok
}

// liveTables are the mirror's tables that were not dropped: what a
// verification of the whole mirror compares.
func (d *daemon) liveTables() []string {
	var out []string
	for _, t := range d.m.Tables() {
		if !d.isDropped(t.Name) {
			out = append(out, t.Name)
		}
	}
	return out
}

// pollDropped looks up every table the mirror holds by name and marks
// those PostgreSQL no longer has.
func (d *daemon) pollDropped(ctx context.Context, conn *pgx.Conn) error {
	if d.m == nil {
		return nil
	}
	byQuoted := map[string]string{}
	var quoted []string
	for _, t := range d.m.Tables() {
		if d.isDropped(t.Name) {
			continue
		}
		tn, err := wal.ParseTableName(t.Name)
		if err != nil {
			continue // not a name PostgreSQL could have: nothing to look up
		}
		q := tn.Quoted()
		byQuoted[q] = t.Name
		quoted = append(quoted, q)
	}
	if len(quoted) == 0 {
		return nil
	}
	rows, err := conn.Query(ctx, "SELECT n FROM unnest($1::text[]) AS n WHERE pg_catalog.to_regclass(n) IS NULL", quoted)
	if err != nil {
		return fmt.Errorf("look up the followed tables: %w", err)
	}
	missing, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("look up the followed tables: %w", err)
	}
	for _, q := range missing {
		d.markDropped(byQuoted[q], "catalog poll")
	}
	return nil
}

// hasMirror reports whether dir holds a data directory already (a
// restart): a configured table missing from PostgreSQL may then be one the
// mirror followed before it was dropped.
func hasMirror(dir string) bool {
	entries, err := os.ReadDir(dir)
	return err == nil && len(entries) > 0
}

// preflightAgain judges, once the mirror is open, the configured tables
// preflight found missing: those the mirror holds were dropped after they
// were followed (warnings: marked dropped, the daemon starts); any other
// fails the start as before.
func (d *daemon) preflightAgain(ctx context.Context) error {
	var known []string
	for _, t := range d.m.Tables() {
		known = append(known, t.Name)
	}
	absent, err := d.preflightWith(ctx, known)
	if err != nil {
		return err
	}
	for _, t := range absent {
		if slices.Contains(known, t) {
			d.markDropped(t, "preflight at start")
		}
	}
	return nil
}

// liveNames are the followed tables that were not dropped.
func (d *daemon) liveNames() []string {
	return slices.DeleteFunc(d.names(), d.isDropped)
}

// verifyLive runs vr; a request naming no table verifies the tables that
// were not dropped (a dropped one has nothing to compare with).
func (d *daemon) verifyLive(vr *verify.Runner) func(ctx context.Context, names []string) (*verify.Report, error) {
	return func(ctx context.Context, names []string) (*verify.Report, error) {
		if len(names) == 0 {
			names = d.liveTables()
		}
		return vr.Run(ctx, names)
	}
}
