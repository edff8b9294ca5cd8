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

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/replication"
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
	if d.m != nil {
		d.m.SetGone(table, true) // the SQL port no longer has it at HEAD
	}
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
// those PostgreSQL no longer has. A table found under its name with
// another OID than the one the mirror copied was re-created (dropped and
// created again, maybe between two polls): it is followed again, as a new
// incarnation, once the publication has it (recreated).
func (d *daemon) pollDropped(ctx context.Context, conn *pgx.Conn) error {
	if d.m == nil {
		return nil
	}
	byQuoted := map[string]mirror.TableInfo{}
	var quoted []string
	for _, t := range d.m.Tables() {
		tn, err := wal.ParseTableName(t.Name)
		if err != nil {
			continue // not a name PostgreSQL could have: nothing to look up
		}
		q := tn.Quoted()
		byQuoted[q] = t
		quoted = append(quoted, q)
	}
	if len(quoted) == 0 {
		return nil
	}
	rows, err := conn.Query(ctx, "SELECT n, pg_catalog.to_regclass(n)::oid FROM unnest($1::text[]) AS n", quoted)
	if err != nil {
		return fmt.Errorf("look up the followed tables: %w", err)
	}
	type found struct {
		q   string
		oid *uint32
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (found, error) {
		var f found
		return f, r.Scan(&f.q, &f.oid)
	})
	if err != nil {
		return fmt.Errorf("look up the followed tables: %w", err)
	}
	var again []mirror.TableInfo
	for _, f := range all {
		t := byQuoted[f.q]
		dropped := d.isDropped(t.Name)
		switch {
		case f.oid == nil:
			if !dropped {
				d.markDropped(t.Name, "catalog poll")
			}
		case t.State != mirror.StateReady:
			// Being copied again (a resync the stream asked for when the
			// new table's first change came): nothing to do until then.
		case t.Relation != nil && t.Relation.OID != 0 && t.Relation.OID != *f.oid:
			again = append(again, t)
		case dropped:
			// Ready at the OID PostgreSQL has: copied again since it was
			// found dropped.
			d.undrop(t.Name)
		}
	}
	if len(again) > 0 {
		return d.recreated(ctx, conn, again)
	}
	return nil
}

// recreated follows again tables re-created under a followed name, each
// as a new incarnation: once the publication publishes the new table
// (tables ["*"] with the sidecar's publication: the poll for new tables
// adds it; a table listed in the config and a publication the sidecar
// manages: added here; a publication the user made: when the user adds
// it), the mirror copies it again (a resync: the old table's history
// stays readable at the versions before, HEAD is the new table) and it is
// no longer reported dropped. Until then it is reported dropped.
func (d *daemon) recreated(ctx context.Context, conn *pgx.Conn, tables []mirror.TableInfo) error {
	pub, err := replication.PublishedTables(ctx, conn, d.cfg.Publication)
	if err != nil {
		return err
	}
	var managed bool
	if _, managed, err = replication.PublicationManaged(ctx, conn, d.cfg.Publication); err != nil {
		return err
	}
	for _, t := range tables {
		tn, _ := wal.ParseTableName(t.Name)
		if !pub[tn] && managed && !d.allTables() && d.configured(t.Name) {
			if err := replication.AddToPublication(ctx, conn, d.cfg.Publication, tn); err != nil {
				d.markDropped(t.Name, "re-created, not added to the publication: "+err.Error())
				continue
			}
			d.log.Info("re-created followed table added to the sidecar's publication", "table", t.Name, "publication", d.cfg.Publication)
			pub[tn] = true
		}
		if !pub[tn] {
			// The old table is gone; the new one is not published (yet).
			d.markDropped(t.Name, fmt.Sprintf("re-created, not in publication %s (ALTER PUBLICATION %s ADD TABLE %s to follow it again)",
				d.cfg.Publication, wal.QuoteIdent(d.cfg.Publication), tn.Quoted()))
			continue
		}
		reason := "re-created in PostgreSQL (a new table under the same name): copied again; the old table's history stays readable at the versions before"
		if err := d.m.MarkResync(ctx, t.Name, reason); err != nil {
			return fmt.Errorf("follow re-created table %s: %w", t.Name, err)
		}
		d.undrop(t.Name)
		d.log.Info("followed table re-created in PostgreSQL: following the new table, copied again (the old one's history stays readable)",
			"table", t.Name, "old_oid", t.Relation.OID)
	}
	return nil
}

// configured reports whether the config's tables list name itself (not
// through a partitioned root).
func (d *daemon) configured(name string) bool {
	return slices.ContainsFunc(d.cfg.Tables, func(c string) bool {
		tn, err := wal.ParseTableName(c)
		return err == nil && tn.String() == name
	})
}

// undrop forgets that table was dropped: it exists again and is followed.
func (d *daemon) undrop(table string) {
	d.mu.Lock()
	_, was := d.dropped.at[table]
	delete(d.dropped.at, table)
	d.mu.Unlock()
	if d.m != nil {
		d.m.SetGone(table, false)
	}
	if was && d.dropped.gauge != nil {
		d.dropped.gauge.DeleteLabelValues(table)
	}
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
