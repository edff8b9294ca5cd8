package daemon

import (
	"context"
	"time"

	"github.com/sidecar-dev/sidecar/follow"
	"github.com/sidecar-dev/sidecar/replication"
)

// ErrForeignSlot is follow.ErrForeignSlot: run refuses a slot whose
// acknowledged changes the data directory lacks.
var ErrForeignSlot = follow.ErrForeignSlot

// newFollower wires the follow lifecycle (package follow) to the daemon's
// status, metrics and logs.
func (d *daemon) newFollower() *follow.Follower {
	return follow.New(follow.Config{
		ConnString:      d.conn,
		Slot:            d.cfg.Slot,
		Publication:     d.cfg.Publication,
		Tables:          d.tables,
		AllTables:       d.allTables(),
		Target:          d.m,
		Sink:            d.remoteSink(&countingSink{Mirror: d.m, met: d.met}),
		CopiedAt:        d.copied,
		DataDir:         d.cfg.DataDir,
		Copy:            replication.CopyOptions{Progress: d.copyProgress},
		SlotReleaseWait: d.opts.SlotReleaseWait,
		Logger:          d.log,
		OnPhase:         d.setPhase,
		OnPublication:   d.adoptPublication,
		OnError:         d.streamError,
		Stream:          d.remoteStream,
	})
}

// follow runs the follower until ctx ends.
func (d *daemon) follow(ctx context.Context) error {
	return d.f.Run(ctx)
}

func (d *daemon) allTables() bool {
	return len(d.cfg.Tables) == 1 && d.cfg.Tables[0] == "*"
}

// names returns the canonical names of the tables followed.
func (d *daemon) names() []string {
	if d.f == nil {
		return nil
	}
	return d.f.Tables()
}

// streamer returns the stream once it runs (nil before).
func (d *daemon) streamer() *replication.Streamer {
	if d.f == nil {
		return nil
	}
	return d.f.Streamer()
}

// Why "*" leaves a table out (status's not_followed).
const (
	reasonNoKey     = "no primary key or replica identity index"
	reasonNoColumns = "no column: its rows carry no value to key or store"
)

// adoptPublication records the configured tables that are not followed.
func (d *daemon) adoptPublication(pub *replication.Publication) {
	d.mu.Lock()
	d.notFollow = map[string]string{}
	for _, t := range pub.WithoutKey {
		d.notFollow[t.String()] = reasonNoKey
	}
	for _, t := range pub.WithoutColumns {
		d.notFollow[t.String()] = reasonNoColumns
	}
	for _, t := range pub.NotPublished { // startables.go
		d.notFollow[t.String()] = "not in publication " + pub.Name
	}
	d.mu.Unlock()
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
