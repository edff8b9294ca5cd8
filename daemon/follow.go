package daemon

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/replication"
)

// follow sets the mirror up if it is new, re-copies what is not ready, and
// streams until ctx ends.
func (d *daemon) follow(ctx context.Context) error {
	if err := d.checkSystem(ctx); err != nil {
		return err
	}
	if d.m.Durable() == 0 {
		if err := d.initialCopy(ctx); err != nil {
			return err
		}
	} else if len(d.names) == 0 { // tables: ["*"], resolved at the first start
		for _, t := range d.m.Tables() {
			tn, err := replication.ParseTableName(t.Name)
			if err != nil {
				return err
			}
			d.tables = append(d.tables, tn)
			d.names = append(d.names, t.Name)
		}
	}
	// Tables copied after the slot's start (resyncs) drop their older
	// changes from the stream; the mirror records each table's copy LSN.
	for _, t := range d.m.Tables() {
		if t.CopiedAt > 0 {
			d.copied.Set(t.Name, t.CopiedAt)
		}
	}
	if err := d.resyncMissing(ctx); err != nil {
		return err
	}
	s, err := replication.NewStreamer(replication.StreamConfig{
		ConnString:  d.conn,
		Slot:        d.cfg.Slot,
		Publication: d.cfg.Publication,
		Sink:        &countingSink{Mirror: d.m, met: d.met},
		System:      d.m.System(),
		CopiedAt:    d.copied,
		SpoolDir:    d.cfg.DataDir,
		Logger:      d.log,
		OnError:     d.streamError,
	})
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.streamer = s
	d.mu.Unlock()
	d.setPhase("streaming")
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- s.Run(sctx) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-errc:
			if err != nil {
				return fmt.Errorf("follow: %w", err)
			}
			return nil
		case <-tick.C:
			// A schema change puts a table in resync_needed; the mirror
			// holds its changes until the copy lands.
			if need := d.m.NeedsResync(); len(need) > 0 {
				if err := d.resync(ctx, need); err != nil {
					cancel()
					<-errc
					return err
				}
				d.setPhase("streaming")
			}
		}
	}
}

// checkSystem refuses another cluster or timeline than the mirror's.
func (d *daemon) checkSystem(ctx context.Context) error {
	rc, err := replication.ConnectReplication(ctx, d.conn)
	if err != nil {
		return fmt.Errorf("connect for replication: %w", err)
	}
	defer rc.Close(context.Background())
	sys, err := replication.IdentifySystem(ctx, rc)
	if err != nil {
		return err
	}
	stored := d.m.System()
	if stored.SystemID == "" && stored.Timeline == 0 {
		return nil // a new mirror: the slot's creation records it
	}
	if err := sys.Check(stored); err != nil {
		return fmt.Errorf("%w; if the server was replaced on purpose, start over with `sidecar run --resync`", err)
	}
	return nil
}

// initialCopy creates the publication, then the slot, and copies every
// table under the slot's exported snapshot.
func (d *daemon) initialCopy(ctx context.Context) error {
	d.setPhase("copying")
	conn, err := replication.Connect(ctx, d.conn)
	if err != nil {
		return err
	}
	pub, err := replication.EnsurePublication(ctx, conn, replication.PublicationSpec{Name: d.cfg.Publication, Tables: d.configuredTables()})
	conn.Close(context.Background())
	if err != nil {
		return fmt.Errorf("publication %q: %w", d.cfg.Publication, err)
	}
	d.adoptPublication(pub)

	if err := d.dropOrphanSlot(ctx); err != nil {
		return err
	}
	snap, err := replication.CreateSlot(ctx, d.conn, d.cfg.Slot)
	if err != nil {
		return err
	}
	defer snap.Close(context.Background())
	if err := d.m.SetSystem(ctx, snap.System); err != nil {
		return err
	}
	d.slotLSN = snap.LSN
	// Tables a first start that died copied under the old slot's snapshot
	// miss the changes between it and this slot's start: copy them again
	// (the copy replaces only a table that is not ready).
	for _, t := range d.m.Tables() {
		if t.State == mirror.StateReady {
			if err := d.m.MarkResync(ctx, t.Name, "the initial copy was interrupted; copying again under the new slot's snapshot"); err != nil {
				return err
			}
		}
	}
	d.log.Info("slot created; copying", "slot", d.cfg.Slot, "consistent_point", snap.LSN, "tables", len(d.tables))
	err = replication.Copy(ctx, d.copyOptions(), snap.Snapshot(), d.tables, d.m)
	if err != nil {
		return fmt.Errorf("initial copy (the next start copies the unfinished tables again): %w", err)
	}
	// Streaming starts at the consistent point; recorded only now, so a
	// mirror with a resume LSN has every table copied or being resynced.
	if err := d.m.SetResumeLSN(ctx, snap.LSN); err != nil {
		return err
	}
	d.log.Info("initial copy done", "consistent_point", snap.LSN)
	return nil
}

// dropOrphanSlot: a new mirror with an existing, idle slot means a first
// start that died between creating the slot and recording the copy. Nothing
// in the data directory depends on that slot, so it is recreated. A slot
// still active may be held by the walsender of that start, which keeps it
// until it notices its client is gone: it is given SlotReleaseWait to let
// go before the slot counts as another consumer's.
func (d *daemon) dropOrphanSlot(ctx context.Context) error {
	rc, err := replication.ConnectReplication(ctx, d.conn)
	if err != nil {
		return err
	}
	defer rc.Close(context.Background())
	info, err := replication.SlotStatus(ctx, rc, d.cfg.Slot)
	if err != nil || !info.Exists {
		return err
	}
	if info.Active {
		d.log.Info("the slot is still in use; waiting for its consumer (a start that died?) to let go", "slot", d.cfg.Slot, "within", d.opts.SlotReleaseWait)
		if info, err = waitSlotReleased(ctx, rc, d.cfg.Slot, d.opts.SlotReleaseWait); err != nil || !info.Exists {
			return err
		}
	}
	if info.Active {
		return fmt.Errorf("slot %q exists and is in use by another process (another sidecar with the same slot name?); choose another `slot` or stop the other consumer", d.cfg.Slot)
	}
	d.log.Warn("the data directory has no mirror but the slot exists (an earlier first start did not finish); recreating the slot", "slot", d.cfg.Slot)
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return replication.DropSlot(dctx, rc, d.cfg.Slot)
}

// waitSlotReleased polls the slot until it is inactive or gone, or within
// has passed, and returns its last state.
func waitSlotReleased(ctx context.Context, rc *pgconn.PgConn, slot string, within time.Duration) (replication.SlotInfo, error) {
	deadline := time.Now().Add(within)
	for {
		info, err := replication.SlotStatus(ctx, rc, slot)
		if err != nil || !info.Exists || !info.Active || !time.Now().Before(deadline) {
			return info, err
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return info, ctx.Err()
		case <-t.C:
		}
	}
}

// resyncMissing copies again, under a fresh snapshot, every followed table
// that is not ready: a copy a crash interrupted, or a schema change.
func (d *daemon) resyncMissing(ctx context.Context) error {
	ready := map[string]bool{}
	for _, t := range d.m.Tables() {
		if t.State.String() == "ready" {
			ready[t.Name] = true
		}
	}
	var missing []string
	for _, n := range d.names {
		if !ready[n] {
			missing = append(missing, n)
		}
	}
	missing = append(missing, d.m.NeedsResync()...)
	slices.Sort(missing)
	missing = slices.Compact(missing)
	if len(missing) == 0 {
		return nil
	}
	return d.resync(ctx, missing)
}

func (d *daemon) resync(ctx context.Context, names []string) error {
	d.setPhase("resyncing")
	var tables []replication.TableName
	for _, n := range names {
		t, err := replication.ParseTableName(n)
		if err != nil {
			return err
		}
		tables = append(tables, t)
	}
	d.log.Info("copying tables again under a fresh snapshot", "tables", names)
	at, err := replication.Resync(ctx, d.copyOptions(), tables, d.m)
	if err != nil {
		return fmt.Errorf("resync %v: %w", names, err)
	}
	for _, n := range names {
		d.copied.Set(n, at)
	}
	d.log.Info("resync done", "tables", names, "at", at)
	return nil
}

func (d *daemon) configuredTables() []string {
	if len(d.cfg.Tables) == 1 && d.cfg.Tables[0] == "*" {
		return []string{"*"}
	}
	return d.names
}

// adoptPublication takes the table list of a "*" publication.
func (d *daemon) adoptPublication(pub *replication.Publication) {
	if len(d.cfg.Tables) == 1 && d.cfg.Tables[0] == "*" {
		d.tables = pub.Tables
		d.names = d.names[:0]
		for _, t := range pub.Tables {
			d.names = append(d.names, t.String())
		}
	}
	d.mu.Lock()
	d.notFollow = map[string]string{}
	for _, t := range pub.WithoutKey {
		d.notFollow[t.String()] = "no primary key or replica identity index"
	}
	d.mu.Unlock()
}

func (d *daemon) copyOptions() replication.CopyOptions {
	return replication.CopyOptions{ConnString: d.conn, Progress: d.copyProgress}
}

// streamError logs reconnect errors, at most one line per
// errorLogEvery; monitor logs the recovery with the count.
func (d *daemon) streamError(err error, retry time.Duration) {
	n := d.errCount.Add(1)
	d.met.Reconnects.Inc()
	d.mu.Lock()
	d.lastErr = err.Error()
	quiet := n > 1 && time.Since(d.lastErrLog) < errorLogEvery
	if !quiet {
		d.lastErrLog = time.Now()
	}
	d.mu.Unlock()
	if !quiet {
		d.log.Error("replication connection failed; retrying", "err", err, "retry_in", retry, "errors_so_far", n)
	}
}

// errorLogEvery rate-limits repeated reconnect errors in the log.
const errorLogEvery = 30 * time.Second
