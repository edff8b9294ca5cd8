package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// The apply benchmark of issue 24 item 4: the seed-003 UPDATE of half the
// table and DELETE of a fifth, each as one transaction, measured in one
// run on the same data: PostgreSQL's statement (to COMMIT), PostgreSQL's
// own logical decoding of the same transaction (pg_recvlogical, pgoutput
// protocol 2 with streaming, as the sidecar asks for, to /dev/null, from a
// slot created just before the statement: the physical limit of any
// logical-replication consumer), and the sidecar following live: COMMIT
// returned → durable (status durable_lsn at or past the commit) and →
// visible at HEAD (the in-memory HEAD shows the marker row updated in the
// same transaction). The target is the sidecar's times ≤ 1.1× the
// decoding's.

// ApplyOptions configure RunApply.
type ApplyOptions struct {
	Rows int // rows of t
	Reps int // repetitions (median, min, max reported)
	Dir  string
	// ProfileDir, if set, receives a CPU profile and allocation profiles
	// (before/after, for pprof -base) of each sidecar window: from the
	// statement's start until durable and visible.
	ProfileDir string
	Logf       func(string, ...any)
}

// ApplyCell is one statement's samples.
type ApplyCell struct {
	Name      string
	Statement []time.Duration // PostgreSQL: statement + marker + COMMIT
	Decode    []time.Duration // pg_recvlogical over the transaction's WAL
	Durable   []time.Duration // COMMIT returned → durable_lsn past it
	// Sent: COMMIT returned → the sidecar's walsender has decoded and sent
	// past the commit (pg_stat_replication.sent_lsn): PostgreSQL's share
	// of the sidecar's time; the rest is the sidecar's own work.
	Sent    []time.Duration
	Visible []time.Duration // COMMIT returned → marker at HEAD
}

// ApplyReport is what RunApply measured.
type ApplyReport struct {
	Env        Env
	Started    time.Time
	Took       time.Duration
	Rows, Reps int
	PGVersion  string
	Cells      []*ApplyCell
	Loads      []string // load averages at each repetition's start, and at the end
}

// RunApply runs the benchmark.
func RunApply(ctx context.Context, o ApplyOptions) (*ApplyReport, error) {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	rep := &ApplyReport{Env: CollectEnv(ctx), Started: time.Now().UTC(), Rows: o.Rows, Reps: o.Reps}
	scratch, pg, url, cleanup, err := startScratch(ctx, o.Dir, "sidecar-bench-apply-", replDB, o.Logf)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	conn, err := connectScratch(ctx, url, readsDDL, &rep.PGVersion)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	o.Logf("loading %d rows", o.Rows)
	if err := insertSeedRows(ctx, conn, 1, o.Rows); err != nil {
		return nil, err
	}
	for _, q := range []string{"VACUUM (ANALYZE) t", "CHECKPOINT", "CREATE PUBLICATION " + replPub + " FOR TABLE t, marker"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	cfg, err := sidecarConfig(scratch, url, "apply", filepath.Join(scratch, "data"))
	if err != nil {
		return nil, err
	}
	models := make(chan *head.Model, 1)
	// Every fsync that made commits durable is signalled, so the durable
	// LSN is read right after it (not by polling /api/status, whose
	// memory accounting walks the heap's pages and costs the apply CPU).
	synced := make(chan time.Time, 1)
	sc, err := startSidecarWith(ctx, cfg, filepath.Join(scratch, "sidecar.log"), func(do *daemon.Options) {
		do.OnHead = func(m *head.Model) { models <- m }
		do.Mirror = func(mo *mirror.Options) {
			prev := mo.OnSync
			mo.OnSync = func(d time.Duration) {
				if prev != nil {
					prev(d)
				}
				select {
				case synced <- time.Now():
				default: // one pending signal is enough: the poller reads the latest durable LSN
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	defer sc.stop()
	model := <-models
	if _, err := sc.waitCopied(ctx, 30*time.Minute); err != nil {
		return nil, err
	}
	r := &readsRun{o: ReadsOptions{Rows: o.Rows, Logf: o.Logf}, conn: conn, sc: sc, model: model}
	if r.markerKey, err = rowenc.EncodeKey([]rowenc.KeyKind{rowenc.KindInt4}, "1"); err != nil {
		return nil, err
	}
	if err := r.waitApplied(ctx, "init"); err != nil {
		return nil, err
	}
	for model.Len("public.t") != o.Rows { // the copy of t may be delivered after the marker's
		if err := sc.failed(); err != nil {
			return nil, err
		}
		if err := sleepCtx(ctx, time.Millisecond); err != nil {
			return nil, err
		}
	}
	a := &applyRun{r: r, pg: pg, url: url, o: o, synced: synced}
	n := o.Rows
	upd := &ApplyCell{Name: fmt.Sprintf("UPDATE t SET score = score + 10 WHERE id <= %d (50 %%)", n/2)}
	del := &ApplyCell{Name: fmt.Sprintf("DELETE FROM t WHERE id <= %d (20 %%)", n/5)}
	rep.Cells = []*ApplyCell{upd, del}
	for i := range o.Reps {
		rep.Loads = append(rep.Loads, loadAvg())
		o.Logf("apply rep %d (load %s)", i+1, loadAvg())
		for _, step := range []struct {
			c    *ApplyCell
			id   string
			stmt string
		}{
			{upd, "update", fmt.Sprintf("UPDATE t SET score = score + 10 WHERE id <= %d", n/2)},
			{del, "delete", fmt.Sprintf("DELETE FROM t WHERE id <= %d", n/5)},
		} {
			if err := a.step(ctx, step.c, step.id, i, step.stmt); err != nil {
				return nil, err
			}
		}
		if got, want := model.Len("public.t"), n-n/5; got != want {
			return nil, fmt.Errorf("after the DELETE the in-memory HEAD holds %d rows, want %d", got, want)
		}
		if err := a.putBack(ctx); err != nil {
			return nil, err
		}
	}
	rep.Loads = append(rep.Loads, loadAvg())
	rep.Took = time.Since(rep.Started)
	return rep, nil
}

type applyRun struct {
	r   *readsRun
	pg  *pgtest.Cluster
	url string
	o   ApplyOptions
	// synced receives the time of each fsync of the mirror's commits.
	synced <-chan time.Time
}

// step measures one statement: a decoding slot is created at the current
// WAL position, the statement and the marker commit as one transaction,
// the sidecar's durable and visible times are taken while it follows live,
// then pg_recvlogical decodes the same WAL from the slot (the sidecar idle
// by then, so the two never share the CPUs).
func (a *applyRun) step(ctx context.Context, c *ApplyCell, id string, rep int, stmt string) error {
	slot := "apply_decode_" + id
	if _, err := a.r.conn.Exec(ctx, `SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, slot); err != nil {
		return fmt.Errorf("create slot %s: %w", slot, err)
	}
	defer a.r.conn.Exec(context.Background(), `SELECT pg_drop_replication_slot($1)`, slot) //nolint:errcheck // best effort; the cluster is thrown away
	stopProfile, err := a.startProfile(id, rep)
	if err != nil {
		return err
	}
	poll := startDurablePoller(ctx, a.r.sc, a.synced)
	sent, err := startSentPoller(ctx, a.url, "apply")
	if err != nil {
		poll.stop()
		stopProfile()
		return err
	}
	defer sent.stop()
	pgTime, tag, err := a.r.commit(ctx, stmt)
	t0 := time.Now()
	if err != nil {
		poll.stop()
		stopProfile()
		return err
	}
	var endpos string
	if err := a.r.conn.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&endpos); err != nil {
		poll.stop()
		stopProfile()
		return fmt.Errorf("wal position: %w", err)
	}
	if err := a.r.waitApplied(ctx, tag); err != nil {
		poll.stop()
		stopProfile()
		return err
	}
	visible := time.Since(t0)
	commitEnd := a.r.model.LSN()
	durableAt, err := poll.waitFor(ctx, commitEnd, 30*time.Minute)
	stopProfile()
	if err != nil {
		return err
	}
	sentAt, err := sent.waitFor(ctx, commitEnd, time.Minute)
	if err != nil {
		return err
	}
	c.Sent = append(c.Sent, sentAt.Sub(t0))
	c.Statement = append(c.Statement, pgTime)
	c.Visible = append(c.Visible, visible)
	c.Durable = append(c.Durable, durableAt.Sub(t0))
	dec, err := a.recvlogical(ctx, slot, endpos)
	if err != nil {
		return err
	}
	c.Decode = append(c.Decode, dec)
	a.o.Logf("  %s: statement %s, decode %s, walsender sent past the commit %s, sidecar durable %s, visible %s", id, fmtDur(pgTime), fmtDur(dec), fmtDur(sentAt.Sub(t0)), fmtDur(durableAt.Sub(t0)), fmtDur(visible))
	return nil
}

// recvlogical runs pg_recvlogical on slot from its position to endpos
// (pgoutput protocol 2 with streaming, output to /dev/null), process
// start included.
func (a *applyRun) recvlogical(ctx context.Context, slot, endpos string) (time.Duration, error) {
	tool, err := a.pg.Tool("pg_recvlogical")
	if err != nil {
		return 0, err
	}
	cmd := exec.CommandContext(ctx, tool,
		"-d", a.url, "--slot", slot, "--start", "-E", endpos, "--no-loop", "-f", "/dev/null",
		"-o", "proto_version=2", "-o", "streaming=on", "-o", "publication_names="+replPub)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("pg_recvlogical to %s: %w: %s", endpos, err, out.String())
	}
	return time.Since(t0), nil
}

// putBack restores the starting state, untimed: the deleted rows
// inserted again, the update undone, PostgreSQL's table rewritten and the
// sidecar's heap compacted.
func (a *applyRun) putBack(ctx context.Context) error {
	n := a.o.Rows
	_, tag, err := a.r.commit(ctx, fmt.Sprintf(`INSERT INTO t SELECT g, 'key-' || lpad(g::text, 8, '0'), 'value-' || g || '-' || md5(g::text),
		((g * 7919) %% 1000)::int, (g %% 100)::int FROM generate_series(1::bigint, %d) g; UPDATE t SET score = score - 10 WHERE id > %d AND id <= %d`, n/5, n/5, n/2))
	if err != nil {
		return err
	}
	if err := a.r.waitApplied(ctx, tag); err != nil {
		return err
	}
	for _, q := range []string{"VACUUM FULL t", "ANALYZE t", "CHECKPOINT"} {
		if _, err := a.r.exec(ctx, q); err != nil {
			return err
		}
	}
	if _, err := a.r.model.CompactTable("public.t"); err != nil {
		return err
	}
	if got := a.r.model.Len("public.t"); got != n {
		return fmt.Errorf("after putting the table back the in-memory HEAD holds %d rows, want %d", got, n)
	}
	return nil
}

// startProfile starts a CPU profile of one sidecar window and writes the
// allocation profile before it; the returned stop ends the CPU profile and
// writes the allocation profile after it (pprof -base before after).
func (a *applyRun) startProfile(id string, rep int) (stop func(), err error) {
	if a.o.ProfileDir == "" {
		return func() {}, nil
	}
	base := filepath.Join(a.o.ProfileDir, id+"-"+strconv.Itoa(rep+1))
	if err := writeAllocs(base + ".allocs-before.pprof"); err != nil {
		return nil, err
	}
	f, err := os.Create(base + ".cpu.pprof")
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		if err := writeAllocs(base + ".allocs-after.pprof"); err != nil {
			a.o.Logf("%v", err)
		}
	}, nil
}

func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("allocation profile: %w", err)
	}
	defer f.Close()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		return fmt.Errorf("allocation profile %s: %w", path, err)
	}
	return nil
}

// durablePoller reads the sidecar's durable LSN after each fsync of the
// mirror's commits (and every 100 ms besides) from the moment it starts,
// so a durable position reached before the change is visible at HEAD is
// timed when it happened, not when visibility was. A sample's time is
// when the read that first showed the LSN started: an upper bound, a
// status call after the fsync at most.
type durablePoller struct {
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
	onStop func() // after the sampler ended
	mu     sync.Mutex
	times  []time.Time
	lsns   []wal.LSN
}

func startDurablePoller(ctx context.Context, sc *sidecarRun, synced <-chan time.Time) *durablePoller {
	return startLSNPoller(ctx, synced, 100*time.Millisecond, func(ctx context.Context) (wal.LSN, bool) {
		st, err := sc.status(ctx)
		if err != nil {
			return 0, false
		}
		d, err := wal.ParseLSN(st.DurableLSN)
		return d, err == nil
	})
}

// startSentPoller samples, every 5 ms on a connection of its own, how
// far the walsender of slot has decoded and sent (pg_stat_replication's
// sent_lsn).
func startSentPoller(ctx context.Context, url, slot string) (*durablePoller, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("sent_lsn poller: %w", err)
	}
	p := startLSNPoller(ctx, nil, 5*time.Millisecond, func(ctx context.Context) (wal.LSN, bool) {
		var s *string
		err := conn.QueryRow(ctx, `SELECT r.sent_lsn::text FROM pg_stat_replication r
			JOIN pg_replication_slots s ON s.active_pid = r.pid WHERE s.slot_name = $1`, slot).Scan(&s)
		if err != nil || s == nil {
			return 0, false
		}
		l, err := wal.ParseLSN(*s)
		return l, err == nil
	})
	p.onStop = func() { conn.Close(context.Background()) }
	return p, nil
}

// startLSNPoller samples read after each signal on synced (nil: none)
// and every period, keeping each sample that moved.
func startLSNPoller(ctx context.Context, synced <-chan time.Time, period time.Duration, read func(context.Context) (wal.LSN, bool)) *durablePoller {
	ctx, cancel := context.WithCancel(ctx)
	p := &durablePoller{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		var last wal.LSN
		for {
			select {
			case <-ctx.Done():
				return
			case <-synced:
			case <-tick.C:
			}
			// After a signal the LSN is stored a moment later: a few
			// reads, 1 ms apart, until it moves.
			for range 5 {
				at := time.Now()
				d, ok := read(ctx)
				if ok && d != last {
					last = d
					p.mu.Lock()
					p.times, p.lsns = append(p.times, at), append(p.lsns, d)
					p.mu.Unlock()
					break
				}
				if synced == nil || sleepCtx(ctx, time.Millisecond) != nil {
					break
				}
			}
		}
	}()
	return p
}

func (p *durablePoller) stop() {
	p.once.Do(func() {
		p.cancel()
		<-p.done
		if p.onStop != nil {
			p.onStop()
		}
	})
}

// waitFor returns when the first sample at or past lsn was taken, waiting
// for one up to timeout; the poller is stopped on return.
func (p *durablePoller) waitFor(ctx context.Context, lsn wal.LSN, timeout time.Duration) (time.Time, error) {
	defer p.stop()
	deadline := time.Now().Add(timeout)
	for {
		p.mu.Lock()
		for i, d := range p.lsns {
			if d >= lsn {
				t := p.times[i]
				p.mu.Unlock()
				return t, nil
			}
		}
		p.mu.Unlock()
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("the sidecar's durable LSN never reached %s", lsn)
		}
		if err := sleepCtx(ctx, pollEvery); err != nil {
			return time.Time{}, err
		}
	}
}

// WriteApplyMarkdown renders the report.
func WriteApplyMarkdown(w io.Writer, rep *ApplyReport, command string) error {
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("# Apply benchmark: the seed-003 UPDATE and DELETE vs PostgreSQL's own logical decoding\n\n")
	p("Measured on %s (UTC) at revision `%s`%s by `%s`, %s rows, %d repetitions; PostgreSQL %s. Machine: %s, %d CPUs (GOMAXPROCS %d), %s, go %s. Load averages (1, 5, 15 min) at each repetition's start and at the end: %s.\n\n",
		rep.Started.Format("2006-01-02 15:04"), rep.Env.Commit, dirtyMark(rep.Env), command, fmtRecords(rep.Rows), rep.Reps, rep.PGVersion, rep.Env.CPU, rep.Env.NumCPU, rep.Env.GOMAXPROCS, rep.Env.MemTotal, rep.Env.GoVersion, strings.Join(rep.Loads, "; "))
	p("Per repetition and statement: a pgoutput slot is created, the statement and an update of a one-row `marker` commit as one transaction (PostgreSQL's time: to COMMIT returned); the sidecar follows live (in process, `daemon.Run`): *durable* = COMMIT returned → `/api/status` durable_lsn at or past the commit (read right after every fsync of the mirror, signalled in process, and every 100 ms; the time is the start of the first read that showed it, an upper bound), *visible* = COMMIT returned → the in-memory HEAD shows the marker (polled every 200 µs). Then, with the sidecar idle, `pg_recvlogical --start -E <WAL after COMMIT> -f /dev/null -o proto_version=2 -o streaming=on` decodes the same transaction from the slot (process start included): PostgreSQL's own logical decoding, the physical limit of any consumer. Between repetitions the table is put back (rows inserted again, update undone, VACUUM FULL, CHECKPOINT; the sidecar's heap compacted), untimed. Median (min–max).\n\n")
	p("*walsender sent* = COMMIT returned → the sidecar's walsender's `pg_stat_replication.sent_lsn` at or past the commit (sampled every 5 ms): how much of the sidecar's time is PostgreSQL decoding the transaction's tail for it while it follows live; *durable − sent* and *visible − sent* are then the sidecar's own work after the last change arrived (for a streamed transaction, whose changes are applied into a pending state as its chunks arrive: the last chunk's spill into the scratch trees, the group's fsync, then the in-memory HEAD; a transaction whose pending state gave up replays its spool first).\n\n")
	p("| statement | PostgreSQL statement | decoding (pg_recvlogical) | walsender sent past COMMIT (live) | sidecar commit → durable | sidecar commit → visible at HEAD | durable ÷ decoding | visible ÷ decoding | target ≤ 1.1× met? |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range rep.Cells {
		dec := median(c.Decode)
		rd, rv := float64(median(c.Durable))/float64(dec), float64(median(c.Visible))/float64(dec)
		p("| %s | %s | %s | %s | %s | %s | %.2f× | %.2f× | %s |\n", c.Name, span3(c.Statement), span3(c.Decode), span3(c.Sent), span3(c.Durable), span3(c.Visible), rd, rv, mark(max(rd, rv) <= 1.1))
	}
	p("\nRun took %s.\n", fmtDur(rep.Took))
	_, err := io.WriteString(w, b.String())
	return err
}

func span3(xs []time.Duration) string {
	if len(xs) == 0 {
		return "—"
	}
	return fmt.Sprintf("%s (%s–%s)", fmtDur(median(xs)), fmtDur(minDur(xs)), fmtDur(maxDur(xs)))
}

func dirtyMark(e Env) string {
	if e.DirtyElsewhere || len(e.Dirty) > 0 {
		return " (with uncommitted changes)"
	}
	return ""
}
