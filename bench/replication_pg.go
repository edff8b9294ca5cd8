package bench

import (
	"bufio"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
)

// The benchmark's PostgreSQL side: the publisher's table and marker, the
// built-in subscriber, pgbench and pg_recvlogical runs, and the canonical
// checksum of a table. Names are those of replication.md §9.
const (
	replDB      = "bench"
	replPub     = "bench"
	replSub     = "sub"
	replTable   = "public.t"
	replMarker  = "public.marker"
	pollEvery   = 2 * time.Millisecond // marker polling, as the §9 baseline's wait_tag
	slotTimeout = 60 * time.Second
)

// pubSettings mirror the §9 baseline's publisher (durable: fsync and
// full-page writes on, unlike pgtest's defaults).
var pubSettings = map[string]string{
	"fsync":            "on",
	"full_page_writes": "on",
	"shared_buffers":   "1GB",
	"max_wal_size":     "8GB",
}

// subSettings are the baseline subscriber's.
var subSettings = map[string]string{
	"fsync":                           "on",
	"full_page_writes":                "on",
	"shared_buffers":                  "1GB",
	"max_wal_size":                    "8GB",
	"max_logical_replication_workers": "8",
	"max_worker_processes":            "16",
}

const tableDDL = `CREATE TABLE t (id bigint PRIMARY KEY, k bytea NOT NULL, v text NOT NULL, score int NOT NULL);
CREATE TABLE marker (id int PRIMARY KEY, tag text)`

// pgSide is the publisher and the subscriber of one table size.
type pgSide struct {
	pub, sub       *pgtest.Cluster
	pubURL, subURL string
	pubConn        *pgx.Conn // the driver's session on the publisher
	subConn        *pgx.Conn // the driver's session on the subscriber
	scratch        string    // pgbench script and logs
	markerSeq      int
	// lastSubStart is when the subscription was last created or enabled:
	// PostgreSQL's logical replication launcher starts apply workers at
	// most once per wal_retrieve_retry_interval (5 s by default), so a
	// timed start waits out that throttle first instead of measuring it.
	lastSubStart time.Time
}

// startPG starts both clusters, creates the table on both and the
// publication on the publisher. The caller must call close.
func startPG(ctx context.Context, scratch string, logf func(string, ...any)) (_ *pgSide, err error) {
	p := &pgSide{scratch: scratch}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	if p.pub, err = pgtest.Start(ctx, pgtest.Options{Settings: pubSettings, Logf: logf}); err != nil {
		return nil, fmt.Errorf("start publisher: %w", err)
	}
	if p.sub, err = pgtest.Start(ctx, pgtest.Options{Settings: subSettings, Logf: logf}); err != nil {
		return nil, fmt.Errorf("start subscriber: %w", err)
	}
	if p.pubURL, err = p.pub.CreateDB(ctx, replDB); err != nil {
		return nil, err
	}
	if p.subURL, err = p.sub.CreateDB(ctx, replDB); err != nil {
		return nil, err
	}
	if p.pubConn, err = pgx.Connect(ctx, p.pubURL); err != nil {
		return nil, fmt.Errorf("connect to publisher: %w", err)
	}
	if p.subConn, err = pgx.Connect(ctx, p.subURL); err != nil {
		return nil, fmt.Errorf("connect to subscriber: %w", err)
	}
	for _, c := range []*pgx.Conn{p.pubConn, p.subConn} {
		if _, err := c.Exec(ctx, tableDDL); err != nil {
			return nil, fmt.Errorf("create tables: %w", err)
		}
	}
	if _, err := p.pubConn.Exec(ctx, `INSERT INTO marker VALUES (1, 'init'); CREATE PUBLICATION `+replPub+` FOR TABLE t, marker`); err != nil {
		return nil, fmt.Errorf("create publication: %w", err)
	}
	return p, nil
}

func (p *pgSide) close() {
	for _, c := range []*pgx.Conn{p.pubConn, p.subConn} {
		if c != nil {
			c.Close(context.Background())
		}
	}
	// The subscriber first: its workers hold walsenders on the publisher.
	for _, c := range []*pgtest.Cluster{p.sub, p.pub} {
		if c != nil {
			_ = c.Stop()
		}
	}
}

// pubDSN is the publisher in keyword form, for CREATE SUBSCRIPTION and the
// client programs.
func (p *pgSide) pubDSN() string {
	return fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=%s", p.pub.Port(), replDB)
}

// load fills t with n rows exactly as the §9 baseline does, then vacuums
// and checkpoints so later phases start from the same state.
func (p *pgSide) load(ctx context.Context, n int) (time.Duration, error) {
	t0 := time.Now()
	_, err := p.pubConn.Exec(ctx, `INSERT INTO t SELECT g, substring(sha256(int8send(g)) from 1 for 24),
		substr(md5(g::text)||md5(g::text),1,27), ((g::bigint*7919) % 1000003)::int
		FROM generate_series(1, $1::bigint) g`, n)
	if err != nil {
		return 0, fmt.Errorf("load %d rows: %w", n, err)
	}
	d := time.Since(t0)
	if _, err := p.pubConn.Exec(ctx, `VACUUM (ANALYZE) t`); err != nil {
		return 0, fmt.Errorf("vacuum after load: %w", err)
	}
	if _, err := p.pubConn.Exec(ctx, `CHECKPOINT`); err != nil {
		return 0, fmt.Errorf("checkpoint after load: %w", err)
	}
	return d, nil
}

// copyOut times `COPY t TO STDOUT` (text) into io.Discard.
func (p *pgSide) copyOut(ctx context.Context) (time.Duration, int64, error) {
	t0 := time.Now()
	tag, err := p.pubConn.PgConn().CopyTo(ctx, io.Discard, "COPY t TO STDOUT")
	if err != nil {
		return 0, 0, fmt.Errorf("COPY t TO STDOUT: %w", err)
	}
	return time.Since(t0), tag.RowsAffected(), nil
}

// nextTag returns a marker tag never used before in this run.
func (p *pgSide) nextTag(phase string) string {
	p.markerSeq++
	return fmt.Sprintf("%s-%d", phase, p.markerSeq)
}

// marker identifies one marker commit: the tag the subscriber polls for,
// the start of its transaction (PostgreSQL's now(); the sidecar waits for
// a commit at or after it) and the WAL position after its commit.
type marker struct {
	tag   string
	since time.Time
	wal   string
}

// setMarker commits a marker update alone.
func (p *pgSide) setMarker(ctx context.Context, phase string) (marker, error) {
	mk := marker{tag: p.nextTag(phase)}
	if err := p.pubConn.QueryRow(ctx, `UPDATE marker SET tag = $1 WHERE id = 1 RETURNING now()`, mk.tag).Scan(&mk.since); err != nil {
		return mk, fmt.Errorf("set marker %s: %w", mk.tag, err)
	}
	var err error
	mk.wal, err = p.walLSN(ctx)
	return mk, err
}

func (p *pgSide) walLSN(ctx context.Context) (string, error) {
	var lsn string
	if err := p.pubConn.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lsn); err != nil {
		return "", fmt.Errorf("read WAL position: %w", err)
	}
	return lsn, nil
}

// bigUpdate changes every stride-th row (score + 1, v reversed, so every
// repetition changes every row it touches) and the marker in one
// transaction, and returns when its COMMIT has returned.
func (p *pgSide) bigUpdate(ctx context.Context, stride int) (mk marker, stmt time.Duration, committed time.Time, rows int64, err error) {
	mk.tag = p.nextTag("update")
	t0 := time.Now()
	tx, err := p.pubConn.Begin(ctx)
	if err != nil {
		return mk, 0, time.Time{}, 0, fmt.Errorf("big update: %w", err)
	}
	defer tx.Rollback(context.Background())
	ct, err := tx.Exec(ctx, `UPDATE t SET score = score + 1, v = reverse(v) WHERE id % $1 = 0`, stride)
	if err != nil {
		return mk, 0, time.Time{}, 0, fmt.Errorf("big update: %w", err)
	}
	if err := tx.QueryRow(ctx, `UPDATE marker SET tag = $1 WHERE id = 1 RETURNING now()`, mk.tag).Scan(&mk.since); err != nil {
		return mk, 0, time.Time{}, 0, fmt.Errorf("big update marker: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return mk, 0, time.Time{}, 0, fmt.Errorf("big update commit: %w", err)
	}
	committed = time.Now()
	if mk.wal, err = p.walLSN(ctx); err != nil {
		return mk, 0, time.Time{}, 0, err
	}
	return mk, committed.Sub(t0), committed, ct.RowsAffected(), nil
}

// subscribe creates the subscription (streaming on, the same protocol the
// sidecar uses) and returns when every table is in state r.
func (p *pgSide) subscribe(ctx context.Context) (time.Duration, error) {
	if err := p.launcherPause(ctx); err != nil {
		return 0, err
	}
	t0 := time.Now()
	_, err := p.subConn.Exec(ctx, fmt.Sprintf(`CREATE SUBSCRIPTION %s CONNECTION '%s' PUBLICATION %s WITH (streaming = on)`, replSub, p.pubDSN(), replPub))
	if err != nil {
		return 0, fmt.Errorf("create subscription: %w", err)
	}
	for {
		var ready, all int
		err := p.subConn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE srsubstate = 'r'), count(*) FROM pg_subscription_rel`).Scan(&ready, &all)
		if err != nil {
			return 0, fmt.Errorf("poll subscription state: %w", err)
		}
		if all == 2 && ready == 2 {
			return time.Since(t0), nil
		}
		if err := sleepCtx(ctx, pollEvery); err != nil {
			return 0, fmt.Errorf("wait for subscription sync: %w", err)
		}
	}
}

// launcherPause waits until the launcher may start a worker again (see
// lastSubStart) and records the start about to happen.
func (p *pgSide) launcherPause(ctx context.Context) error {
	const throttle = 5*time.Second + 200*time.Millisecond
	if wait := time.Until(p.lastSubStart.Add(throttle)); wait > 0 {
		if err := sleepCtx(ctx, wait); err != nil {
			return err
		}
	}
	p.lastSubStart = time.Now()
	return nil
}

// unsubscribe drops the subscription (and its slot) and empties the
// subscriber's tables for the next sync.
func (p *pgSide) unsubscribe(ctx context.Context) error {
	if _, err := p.subConn.Exec(ctx, `DROP SUBSCRIPTION IF EXISTS `+replSub); err != nil {
		return fmt.Errorf("drop subscription: %w", err)
	}
	if _, err := p.subConn.Exec(ctx, `TRUNCATE t, marker`); err != nil {
		return fmt.Errorf("truncate subscriber: %w", err)
	}
	return nil
}

// enableSub switches the subscription on or off; off waits until its slot
// is released, so that no decoding runs for it while another consumer is
// timed.
func (p *pgSide) enableSub(ctx context.Context, on bool) error {
	_, err := p.switchSub(ctx, on)
	return err
}

// switchSub is enableSub; it returns when the ALTER was sent (after the
// launcher pause), the start of a timed catch-up.
func (p *pgSide) switchSub(ctx context.Context, on bool) (time.Time, error) {
	verb := "DISABLE"
	if on {
		verb = "ENABLE"
		if err := p.launcherPause(ctx); err != nil {
			return time.Time{}, err
		}
	}
	t0 := time.Now()
	if _, err := p.subConn.Exec(ctx, `ALTER SUBSCRIPTION `+replSub+` `+verb); err != nil {
		return t0, fmt.Errorf("alter subscription %s: %w", verb, err)
	}
	if on {
		return t0, nil
	}
	return t0, p.waitSlotsIdle(ctx, replSub)
}

// waitSlotsIdle waits until the publisher's slot is not active.
func (p *pgSide) waitSlotsIdle(ctx context.Context, slot string) error {
	deadline := time.Now().Add(slotTimeout)
	for {
		var active bool
		err := p.pubConn.QueryRow(ctx, `SELECT coalesce(bool_or(active), false) FROM pg_replication_slots WHERE slot_name = $1`, slot).Scan(&active)
		if err != nil {
			return fmt.Errorf("poll slot %s: %w", slot, err)
		}
		if !active {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("slot %s still active after %s", slot, slotTimeout)
		}
		if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
			return err
		}
	}
}

// dropSlot drops a publisher slot once it is released.
func (p *pgSide) dropSlot(ctx context.Context, slot string) error {
	if err := p.waitSlotsIdle(ctx, slot); err != nil {
		return err
	}
	if _, err := p.pubConn.Exec(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1`, slot); err != nil {
		return fmt.Errorf("drop slot %s: %w", slot, err)
	}
	return nil
}

// createDecodeSlot creates a pgoutput slot for pg_recvlogical at the
// current WAL position.
func (p *pgSide) createDecodeSlot(ctx context.Context, slot string) error {
	if _, err := p.pubConn.Exec(ctx, `SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, slot); err != nil {
		return fmt.Errorf("create slot %s: %w", slot, err)
	}
	return nil
}

// waitSubMarker polls the subscriber's marker every pollEvery until it
// shows tag and returns when it did.
func (p *pgSide) waitSubMarker(ctx context.Context, tag string, timeout time.Duration) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		var got *string
		err := p.subConn.QueryRow(ctx, `SELECT tag FROM marker WHERE id = 1`).Scan(&got)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return time.Time{}, fmt.Errorf("subscriber marker %s: %w", tag, err)
		}
		if got != nil && *got == tag {
			return time.Now(), nil
		}
		if err := sleepCtx(ctx, pollEvery); err != nil {
			return time.Time{}, fmt.Errorf("subscriber never showed marker %s: %w", tag, err)
		}
	}
}

// recvlogical runs pg_recvlogical on slot from its position to endpos,
// protocol 2 with streaming, output to /dev/null: the cost of decoding
// and sending the WAL range with no consumer work. The time includes the
// process start, as in §9.
func (p *pgSide) recvlogical(ctx context.Context, slot, endpos string) (time.Duration, error) {
	tool, err := p.pub.Tool("pg_recvlogical")
	if err != nil {
		return 0, err
	}
	cmd := exec.CommandContext(ctx, tool,
		"-d", p.pubDSN(), "--slot", slot, "--start", "-E", endpos, "--no-loop", "-f", "/dev/null",
		"-o", "proto_version=2", "-o", "streaming=on", "-o", "publication_names="+replPub)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("pg_recvlogical to %s: %w: %s", endpos, err, out.String())
	}
	return time.Since(t0), nil
}

// pgbenchResult is what a pgbench run reports.
type pgbenchResult struct {
	Txns    int64
	TPS     float64
	Elapsed time.Duration
}

var (
	reTxns = regexp.MustCompile(`number of transactions actually processed: (\d+)`)
	reTPS  = regexp.MustCompile(`tps = ([0-9.]+)`)
)

// pgbench runs single-row updates of random rows of t, either txns
// transactions in total or for dur, with clients sessions.
func (p *pgSide) pgbench(ctx context.Context, rows, clients, txns int, dur time.Duration) (pgbenchResult, error) {
	script := filepath.Join(p.scratch, "upd.sql")
	body := fmt.Sprintf("\\set id random(1, %d)\nUPDATE t SET score = score + 1 WHERE id = :id;\n", rows)
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		return pgbenchResult{}, fmt.Errorf("write pgbench script: %w", err)
	}
	args := []string{"-n", "-h", "127.0.0.1", "-p", strconv.Itoa(p.pub.Port()), "-U", "postgres",
		"-c", strconv.Itoa(clients), "-j", strconv.Itoa(min(clients, 2)), "-f", script}
	if dur > 0 {
		args = append(args, "-T", strconv.Itoa(int(dur.Seconds())))
	} else {
		per := txns / clients
		args = append(args, "-t", strconv.Itoa(per))
	}
	args = append(args, replDB)
	tool, err := p.pub.Tool("pgbench")
	if err != nil {
		return pgbenchResult{}, err
	}
	cmd := exec.CommandContext(ctx, tool, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return pgbenchResult{}, fmt.Errorf("pgbench: %w: %s", err, out.String())
	}
	r := pgbenchResult{Elapsed: time.Since(t0)}
	m := reTxns.FindStringSubmatch(out.String())
	if m == nil {
		return r, fmt.Errorf("pgbench: no transaction count in its output: %s", out.String())
	}
	r.Txns, _ = strconv.ParseInt(m[1], 10, 64)
	if m := reTPS.FindStringSubmatch(out.String()); m != nil {
		r.TPS, _ = strconv.ParseFloat(m[1], 64)
	}
	return r, nil
}

// Checksum is a table's canonical content: row count, Σ score, and the md5
// of its rows as "id:hex(k):v:score\n" lines in id order.
type Checksum struct {
	Rows     int64  `json:"rows"`
	SumScore int64  `json:"sum_score"`
	MD5      string `json:"md5"`
}

func (c Checksum) String() string {
	return fmt.Sprintf("%d rows, Σscore %d, md5 %s", c.Rows, c.SumScore, c.MD5)
}

// checksummer accumulates a Checksum from canonical lines.
type checksummer struct {
	h    hash.Hash
	rows int64
	tot  int64
}

func newChecksummer() *checksummer { return &checksummer{h: md5.New()} }

// add takes one row's canonical line (without newline) and its score.
func (c *checksummer) add(line []byte, score int64) {
	c.h.Write(line)
	c.h.Write([]byte{'\n'})
	c.rows++
	c.tot += score
}

func (c *checksummer) result() Checksum {
	return Checksum{Rows: c.rows, SumScore: c.tot, MD5: hex.EncodeToString(c.h.Sum(nil))}
}

// tableChecksum streams t out of a cluster in id order and checksums it.
func tableChecksum(ctx context.Context, conn *pgx.Conn) (Checksum, error) {
	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		_, err := conn.PgConn().CopyTo(ctx, pw, `COPY (SELECT id::text||':'||encode(k,'hex')||':'||v||':'||score::text FROM t ORDER BY id) TO STDOUT`)
		pw.CloseWithError(err)
		errc <- err
	}()
	cs := newChecksummer()
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var perr error
	for sc.Scan() {
		line := sc.Bytes()
		i := strings.LastIndexByte(string(line), ':')
		score, err := strconv.ParseInt(string(line[i+1:]), 10, 64)
		if err != nil && perr == nil {
			perr = fmt.Errorf("checksum: bad line %q: %w", line, err)
		}
		cs.add(line, score)
	}
	if err := sc.Err(); err != nil && perr == nil {
		perr = err
	}
	pr.CloseWithError(io.ErrClosedPipe) // unblock the copy if we stopped early
	if err := <-errc; err != nil && perr == nil {
		perr = fmt.Errorf("checksum copy: %w", err)
	}
	if perr != nil {
		return Checksum{}, perr
	}
	return cs.result(), nil
}

// serverVersion returns the publisher's version string.
func (p *pgSide) serverVersion(ctx context.Context) string {
	var v string
	if err := p.pubConn.QueryRow(ctx, `SHOW server_version`).Scan(&v); err != nil {
		return ""
	}
	return v
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// walsenderCPU returns the process id of the walsender serving slot (0 if
// the slot is not active) and its CPU time so far (user + system, from
// /proc: the cluster runs on this machine). It tells how much of a timed
// interval PostgreSQL spent decoding for the sidecar.
func (p *pgSide) walsenderCPU(ctx context.Context, slot string) (int, time.Duration) {
	var pid *int32
	if err := p.pubConn.QueryRow(ctx, `SELECT active_pid FROM pg_replication_slots WHERE slot_name = $1`, slot).Scan(&pid); err != nil || pid == nil {
		return 0, 0
	}
	return int(*pid), procCPU(int(*pid))
}

// procCPU reads utime + stime of a process from /proc/PID/stat (clock
// ticks of 1/100 s on Linux), 0 if unreadable.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces: fields count from ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// decoderMeter measures the CPU of the sidecar's walsender over an
// interval, across a walsender that starts within it.
type decoderMeter struct {
	pid int
	cpu time.Duration
}

func (p *pgSide) startDecoderMeter(ctx context.Context, slot string) decoderMeter {
	pid, cpu := p.walsenderCPU(ctx, slot)
	return decoderMeter{pid: pid, cpu: cpu}
}

// stop returns the walsender CPU since start (all of it for a walsender
// started after start).
func (m decoderMeter) stop(ctx context.Context, p *pgSide, slot string) time.Duration {
	pid, cpu := p.walsenderCPU(ctx, slot)
	if pid == m.pid {
		return cpu - m.cpu
	}
	return cpu
}
