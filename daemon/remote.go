package daemon

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/follow"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/remote"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/wal"
)

// remoteSide is the daemon's half of remote history (remote.upload): the
// writer holding the prefix's lease and the uploader run after each group.
type remoteSide struct {
	c  *remote.Client
	w  *remote.Writer
	up *remote.Uploader // set by openRemote before anything but kick reads it
	// kick is up once it runs, for the mirror's group-flush hook, which
	// may run before.
	kick   atomic.Pointer[remote.Uploader]
	closed bool // closeRemote ran
}

// RemoteClient returns a client for cfg's remote.* keys.
func RemoteClient(cfg *config.Config) (*remote.Client, error) {
	loc, err := remote.ParseURL(cfg.Remote.URL)
	if err != nil {
		return nil, err
	}
	return remote.NewClient(remote.Config{Location: loc, Endpoint: cfg.Remote.Endpoint, Region: cfg.Remote.Region,
		CredentialsFile: cfg.Remote.CredentialsFile})
}

// restoreFromRemote fills an empty data directory from the remote's
// manifest (sidecar run --from-remote); a directory that already holds a
// mirror is used as it is (a restart with the flag still set).
func (d *daemon) restoreFromRemote(ctx context.Context) error {
	if !d.opts.FromRemote {
		return nil
	}
	if !d.cfg.Remote.Enabled() {
		return errors.New("--from-remote needs remote.url")
	}
	c, err := RemoteClient(d.cfg)
	if err != nil {
		return err
	}
	if d.remote == nil {
		d.log.Warn("--from-remote without remote.upload: the restored sidecar does not hold the prefix's lease; make sure no other sidecar writes it")
	}
	st, err := remote.Restore(ctx, c, d.db)
	if errors.Is(err, remote.ErrNotEmpty) {
		d.log.Info("data_dir already holds a mirror; --from-remote restores only into an empty one", "data_dir", d.cfg.DataDir)
		return nil
	}
	if err != nil {
		return err
	}
	if settled := st.Settled; settled != 0 {
		if err := follow.WriteSettled(d.cfg.DataDir, follow.Settled{LSN: settled, Base: st.Durable}); err != nil {
			return err
		}
	}
	d.log.Info("restored from the remote", "remote", c.Location().String(), "durable_lsn", st.Durable, "segments", st.Segments,
		"records", st.Records, "packs", st.Packs, "nodes", st.Nodes, "bytes", st.BytesFetched, "took", st.Took)
	return nil
}

// remoteHooks turns remote.upload on for this run.
func (d *daemon) remoteHooks() {
	if d.cfg.Remote.Upload {
		d.remote = &remoteSide{}
	}
}

// remoteFlushHook makes each group flush ask for an upload.
func (d *daemon) remoteFlushHook(mopts *mirror.Options) {
	if d.remote == nil {
		return
	}
	r := d.remote
	prev := mopts.OnGroupFlush
	mopts.OnGroupFlush = func(t time.Duration) {
		if prev != nil {
			prev(t)
		}
		if up := r.kick.Load(); up != nil {
			up.Kick()
		}
	}
}

// takeLease takes the prefix's lease (remote.upload) before anything is
// restored or written: another live holder stops the start here, with
// the holder named.
func (d *daemon) takeLease(ctx context.Context) error {
	if d.remote == nil {
		return nil
	}
	c, err := RemoteClient(d.cfg)
	if err != nil {
		return err
	}
	w, err := remote.OpenWriter(ctx, c, remote.WriterOptions{Holder: d.cfg.Remote.HolderName(d.cfg.DataDir), TTL: d.cfg.Remote.LeaseTTL})
	if err != nil {
		return fmt.Errorf("remote.upload: %w", err)
	}
	d.remote.c, d.remote.w = c, w
	return nil
}

// openRemote learns the manifest's packs and uploads once before
// following, so the remote starts level with the data directory.
func (d *daemon) openRemote(ctx context.Context) error {
	if d.remote == nil {
		return nil
	}
	c, w := d.remote.c, d.remote.w
	s := remote.NewStore(c, prolly.NewMemStore(prolly.MemStoreOptions{}), remote.StoreOptions{})
	if err := s.AddPacks(ctx, w.Manifest().Packs); err != nil {
		return fmt.Errorf("remote.upload: %w", err)
	}
	gcEvery := d.cfg.Remote.GCInterval
	if gcEvery == 0 {
		gcEvery = -1 // remote.gc_interval: 0 turns it off
	}
	up := remote.NewUploader(remote.UploaderOptions{Mirror: d.m, DB: d.db, Writer: w, Store: s, Logger: d.log, Interval: d.cfg.Remote.Interval,
		GCInterval: gcEvery, GC: remote.GCOptions{Grace: d.cfg.Remote.GCGrace}})
	if err := up.Upload(ctx); err != nil {
		if errors.Is(err, remote.ErrFenced) || errors.Is(err, remote.ErrLeaseLost) {
			return err
		}
		d.log.Warn("remote upload at start failed; retried in the background", "err", err)
	}
	d.remote.up = up
	d.remote.kick.Store(up)
	reg := func(name, help string, f func() float64) {
		d.met.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
	}
	reg("sidecar_remote_durable_lsn", "Remote-durable LSN: every commit at or below it is in object storage.", func() float64 { return float64(up.Durable()) })
	reg("sidecar_remote_backlog_bytes", "Local durable LSN minus remote-durable LSN, in WAL bytes.", func() float64 { return float64(up.Status().BacklogBytes) })
	reg("sidecar_remote_backlog_groups", "Commit groups flushed locally and not yet uploaded.", func() float64 { return float64(up.Status().BacklogGroups) })
	reg("sidecar_remote_upload_failures", "Uploads that failed (retried).", func() float64 { return float64(up.Status().Failures) })
	d.log.Info("remote upload on", "remote", c.Location().String(), "epoch", w.Epoch(), "remote_durable_lsn", up.Durable(), "sync_ack", d.cfg.Remote.SyncAck)
	return nil
}

// runRemote runs the uploader until ctx ends; a fenced writer or a lost
// lease is fatal (another sidecar writes the prefix now).
func (d *daemon) runRemote(ctx context.Context) error {
	if d.remote == nil || d.remote.up == nil {
		return nil
	}
	if err := d.remote.up.Run(ctx); err != nil {
		return fmt.Errorf("remote: %w; stopping (another sidecar holds %s)", err, d.cfg.Remote.URL)
	}
	return nil
}

// closeRemote uploads what the last group flush made durable and gives the
// lease up, after the mirror closed.
func (d *daemon) closeRemote() {
	if d.remote == nil || d.remote.w == nil || d.remote.closed {
		return
	}
	d.remote.closed = true
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if d.remote.up == nil {
		// Stopped before following: nothing uploaded, nothing to add.
	} else if err := d.remote.up.Upload(ctx); err != nil {
		d.log.Warn("final remote upload failed; the remote stays at its durable LSN", "err", err, "remote_durable_lsn", d.remote.up.Durable())
	}
	if err := d.remote.w.Release(ctx); err != nil {
		d.log.Warn("releasing the remote lease failed; a successor waits for it to expire", "err", err)
	}
}

// ackLimit is the highest LSN the slot may be acknowledged to: the
// durable LSN, or with remote.sync_ack the remote-durable one if lower.
func (d *daemon) ackLimit(durable wal.LSN) wal.LSN {
	if d.remote == nil || d.remote.up == nil || !d.cfg.Remote.SyncAck {
		return durable
	}
	return min(durable, d.remote.up.Durable())
}

// remoteStatus is the remote part of `sidecar status`.
func (d *daemon) remoteStatus() *remote.Status {
	if d.remote == nil || d.remote.up == nil {
		return nil
	}
	st := d.remote.up.Status()
	return &st
}

// syncAckSink records idle acknowledgements in the remote manifest
// before follow's settling sink records them locally (remote.sync_ack).
type syncAckSink struct {
	wal.Sink
	d *daemon
}

// Unwrap returns the wrapped sink (replication looks for optional
// extensions such as its PendingSink through it).
func (s *syncAckSink) Unwrap() wal.Sink { return s.Sink }

// Settle implements wal.Settler.
func (s *syncAckSink) Settle(lsn wal.LSN) error { return s.d.remote.up.Settle(lsn) }

// remoteSink wraps the daemon's sink for remote.sync_ack.
func (d *daemon) remoteSink(s wal.Sink) wal.Sink {
	if d.remote == nil || d.remote.up == nil || !d.cfg.Remote.SyncAck {
		return s
	}
	return &syncAckSink{Sink: s, d: d}
}

// remoteStream caps the stream's flush LSN at the remote-durable LSN
// (remote.sync_ack).
func (d *daemon) remoteStream(sc *replication.StreamConfig) {
	if d.remote == nil || d.remote.up == nil || !d.cfg.Remote.SyncAck {
		return
	}
	up := d.remote.up
	sc.FlushLimit = up.Durable
}
