package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Options configure Start. The zero value is a cluster ready for logical
// replication.
type Options struct {
	// WALLevel is postgresql.conf's wal_level; "" means "logical". Tests of
	// preflight use "replica".
	WALLevel string
	// Settings are extra postgresql.conf settings, written after (and so
	// overriding) the harness's own.
	Settings map[string]string
	// Logf, if set, receives one line per lifecycle event (start, stop).
	Logf func(format string, args ...any)
	// BinDir, if set, is the directory holding initdb and postgres; by
	// default it is $SIDECAR_PG_BIN ([EnvBinDir]), else they are looked up
	// on PATH, with `pg_config --bindir`, then in /usr/lib/postgresql/*/bin
	// (highest version).
	BinDir string
}

// Cluster is a running throwaway PostgreSQL. Its methods are safe for
// concurrent use. The caller must call Stop.
type Cluster struct {
	binDir string
	dir    string // temp dir: data/, sock/, server.log, owner.pid
	port   int
	as     runAs
	logf   func(format string, args ...any)
	dbSeq  atomic.Uint64 // makes NewDB names unique
	verNum int           // server_version_num
	verStr string        // server_version, e.g. "17.10"
	// template is the initdb template the data directory was copied
	// from ("" when initdb ran for this cluster alone).
	template string

	mu       sync.Mutex // guards srv and stopped: Restart against Stop
	srv      *proc      // the running postmaster
	stopped  bool
	stopOnce sync.Once
	stopErr  error
}

const (
	dirPrefix = "sidecar-pgtest-"
	ownerFile = "owner.pid"
	logFile   = "server.log"
	// defaultWait is the start deadline (initdb and the server's start)
	// when ctx has none: a ceiling for a hang, not a measure of speed.
	// initdb's bootstrap is 1.5-3 s of CPU; on 2 cores at load L a process
	// gets about 2/L of a core, so at load 45-50 (helpers and CI beside
	// each other) a start takes 40-90 s, and a niced one longer: 90 s
	// failed TestRestartMidStream's start at load ~45.
	defaultWait   = 5 * time.Minute
	stopWait      = 30 * time.Second // fast shutdown before SIGKILL
	portAttempts  = 5
	logTailLines  = 30
	maxLogTailLen = 4 << 10
)

// Start initdb's a fresh cluster in a temporary directory and starts it. It
// typically takes about a second. On failure nothing is left running or on
// disk, and the error carries the tail of the server log.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	t0 := time.Now()
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultWait)
		defer cancel()
	}
	binDir := opts.BinDir
	if binDir == "" {
		var err error
		if binDir, err = findBinDir(systemLookup()); err != nil {
			return nil, err
		}
	} else if !hasServer(binDir) {
		return nil, fmt.Errorf("pgtest: Options.BinDir %s: %w; install them with `apt-get install postgresql`", binDir, errNoBinaries)
	}
	as, err := serverIdentity()
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	base := tempBase(as)
	sweepStale(base, logf)

	dir, err := os.MkdirTemp(base, dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("pgtest: create cluster dir: %w", err)
	}
	c := &Cluster{binDir: binDir, dir: dir, as: as, logf: logf}
	if err := c.setup(ctx, opts); err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	err = c.admin(ctx, func(conn *pgx.Conn) error {
		return conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int, current_setting('server_version')").Scan(&c.verNum, &c.verStr)
	})
	if err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("pgtest: read server version: %w", err)
	}
	from := ""
	if c.template != "" {
		from = ", initdb template " + c.template
	}
	logf("pgtest: PostgreSQL %s (%s) started on 127.0.0.1:%d in %s (%.2fs%s)", c.verStr, binDir, c.port, dir, time.Since(t0).Seconds(), from)
	return c, nil
}

// setup runs initdb, writes postgresql.conf and starts the server.
func (c *Cluster) setup(ctx context.Context, opts Options) error {
	sock, err := c.prepareDir()
	if err != nil {
		return err
	}
	data := filepath.Join(c.dir, "data")
	if err := c.initdb(ctx, data); err != nil {
		return err
	}
	if err := writeConf(filepath.Join(data, "postgresql.conf"), sock, opts); err != nil {
		return err
	}
	var lastErr error
	for attempt := 0; attempt < portAttempts; attempt++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		err = c.startServer(ctx, data, port)
		if err == nil {
			return nil
		}
		lastErr = err
		if !errors.Is(err, errPortTaken) {
			return err
		}
		c.logf("pgtest: port %d was taken before the server bound it; retrying", port)
	}
	return lastErr
}

// prepareDir writes the owner file (for sweepStale) into the cluster's
// directory and creates its socket directory, both owned by the server's
// user; it returns the socket directory.
func (c *Cluster) prepareDir() (string, error) {
	if err := os.WriteFile(filepath.Join(c.dir, ownerFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("write owner file: %w", err)
	}
	sock := filepath.Join(c.dir, "sock")
	if err := os.Mkdir(sock, 0o700); err != nil {
		return "", fmt.Errorf("create socket dir: %w", err)
	}
	for _, p := range []string{c.dir, sock} {
		if err := c.as.chown(p); err != nil {
			return "", err
		}
	}
	return sock, nil
}

// initdb creates the data directory with initdbArgs: a copy of the
// template for this binary and these options (EnvInitdbCache), made by
// the first start that needs it; initdb itself when templates are off.
func (c *Cluster) initdb(ctx context.Context, data string) error {
	root := cacheRoot(os.Getenv, tempBase(c.as))
	if root == "" {
		return c.runInitdb(ctx, data)
	}
	key, err := templateKey(ctx, c.binDir, initdbArgs, c.as)
	if err != nil {
		return err
	}
	tmpl, made, err := templateDir(ctx, root, key, c.as, c.runInitdb)
	if errors.Is(err, errCacheUnusable) && ctx.Err() == nil {
		c.logf("pgtest: %v; initdb for this cluster alone", err)
		return c.runInitdb(ctx, data)
	}
	if err != nil {
		return err
	}
	c.template = tmpl
	if made {
		c.template += " (made now)"
	}
	return copyTemplate(ctx, tmpl, data)
}

// runInitdb runs initdb into data with initdbArgs.
func (c *Cluster) runInitdb(ctx context.Context, data string) error {
	cmd := c.as.command(filepath.Join(c.binDir, "initdb"), append([]string{"-D", data}, initdbArgs...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := startProc(cmd)
	if err != nil {
		return err
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("initdb %s: %w", data, ctx.Err())
	}
	if p.err != nil {
		return fmt.Errorf("initdb %s: %w\n%s", data, p.err, tail(out.Bytes()))
	}
	return nil
}

// writeConf appends the harness settings, then opts.Settings, to postgresql.conf.
func writeConf(path, sock string, opts Options) error {
	wal := opts.WALLevel
	if wal == "" {
		wal = "logical"
	}
	settings := [][2]string{
		{"wal_level", wal},
		{"max_replication_slots", "32"},
		{"max_wal_senders", "32"},
		{"max_connections", "200"},
		{"shared_buffers", "32MB"},
		{"fsync", "off"},
		// synchronous_commit stays on: with fsync=off a commit's flush is a
		// write() and costs nothing, while with it off a commit is not yet
		// flushed when COMMIT returns, and walsenders and the slot functions
		// only decode flushed WAL, so a test would wait up to
		// wal_writer_delay (200 ms) to see each change.
		{"synchronous_commit", "on"},
		{"full_page_writes", "off"},
		{"listen_addresses", "127.0.0.1"},
		{"unix_socket_directories", sock},
		{"timezone", "UTC"},
		{"log_line_prefix", "%m [%p] %q%u@%d "},
	}
	keys := make([]string, 0, len(opts.Settings))
	for k := range opts.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		settings = append(settings, [2]string{k, opts.Settings[k]})
	}
	return appendConf(path, settings)
}

// appendConf appends settings to the postgresql.conf at path; later lines
// override earlier ones.
func appendConf(path string, settings [][2]string) error {
	var b strings.Builder
	b.WriteString("\n# added by sidecar internal/pgtest\n")
	for _, kv := range settings {
		if !validSettingName(kv[0]) {
			return fmt.Errorf("invalid setting name %q", kv[0])
		}
		fmt.Fprintf(&b, "%s = '%s'\n", kv[0], strings.ReplaceAll(kv[1], "'", "''"))
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func validSettingName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// freePort asks the kernel for a free port on 127.0.0.1. Another process may
// take it before the server binds it; setup retries when that happens.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	return port, nil
}

var errPortTaken = errors.New("port already in use")

// startServer execs postgres directly (no pg_ctl: the postmaster is then our
// own child, so the parent-death signal reaches it) and waits until it
// accepts connections.
func (c *Cluster) startServer(ctx context.Context, data string, port int) error {
	logPath := filepath.Join(c.dir, logFile)
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open server log: %w", err)
	}
	off, _ := lf.Seek(0, 2)
	cmd := c.as.command(filepath.Join(c.binDir, "postgres"), "-D", data, "-p", strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = lf, lf
	p, err := startProc(cmd)
	lf.Close() // the child holds its own descriptor
	if err != nil {
		return err
	}
	c.srv, c.port = p, port
	if err := c.waitReady(ctx, p); err != nil {
		logTail := c.logTail(off)
		if !p.exited() {
			c.kill()
		} else {
			c.srv = nil
		}
		if strings.Contains(logTail, "could not bind") || strings.Contains(logTail, "already in use") {
			return fmt.Errorf("start postgres on port %d: %w\n%s", port, errPortTaken, logTail)
		}
		return fmt.Errorf("start postgres on port %d: %w\nserver log:\n%s", port, err, logTail)
	}
	return nil
}

// waitReady polls until the server accepts a connection, the server exits,
// or ctx ends.
func (c *Cluster) waitReady(ctx context.Context, p *proc) error {
	cfg, err := pgx.ParseConfig(c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("parse url: %w", err)
	}
	cfg.ConnectTimeout = time.Second
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err == nil {
			return conn.Close(ctx)
		}
		select {
		case <-p.done:
			return fmt.Errorf("server exited: %v", p.err)
		case <-ctx.Done():
			return fmt.Errorf("server not ready: %w (last error: %v)", ctx.Err(), err)
		case <-tick.C:
		}
	}
}

// logTail returns the last lines of the server log written after offset off.
func (c *Cluster) logTail(off int64) string {
	b, err := os.ReadFile(filepath.Join(c.dir, logFile))
	if err != nil {
		return fmt.Sprintf("(server log unreadable: %v)", err)
	}
	if off > 0 && off <= int64(len(b)) {
		b = b[off:]
	}
	return tail(b)
}

// tail returns the last logTailLines lines of b, at most maxLogTailLen bytes.
func tail(b []byte) string {
	if len(b) > maxLogTailLen {
		b = b[len(b)-maxLogTailLen:]
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > logTailLines {
		lines = lines[len(lines)-logTailLines:]
	}
	return strings.Join(lines, "\n")
}

// Port is the TCP port the server listens on (127.0.0.1 only).
func (c *Cluster) Port() int { return c.port }

// BinDir is the directory of the server binaries. psql, pgbench and
// pg_recvlogical of the same installation are usually there too, but not
// in a bin dir of scripts/fetch-postgres: use [Cluster.Tool] for those.
func (c *Cluster) BinDir() string { return c.binDir }

// Tool returns the path of a client program (psql, pgbench,
// pg_recvlogical...): the one in BinDir if there is one, else the system's
// (found as the server binaries are when $SIDECAR_PG_BIN is unset), since
// the server packages of other majors ship no client programs and these
// talk to newer and older servers alike.
func (c *Cluster) Tool(name string) (string, error) {
	if p := filepath.Join(c.binDir, name); isExecutable(p) {
		return p, nil
	}
	return findTool(systemLookup(), name)
}

// ServerVersionString is the server's version as it reports it
// (server_version, e.g. "17.10"), for test logs and messages.
func (c *Cluster) ServerVersionString() string { return c.verStr }

// ServerVersion is the server's version number (server_version_num, e.g.
// 150018 for 15.18).
func (c *Cluster) ServerVersion() int { return c.verNum }

// Dir is the cluster's temporary directory (data/, server.log); it is
// removed by Stop.
func (c *Cluster) Dir() string { return c.dir }

// URL is a superuser connection URL for database dbname
// (postgres://postgres@127.0.0.1:PORT/DBNAME?sslmode=disable). No password:
// the cluster trusts connections from 127.0.0.1.
func (c *Cluster) URL(dbname string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User("postgres"),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)),
		Path:     "/" + dbname,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// Stop shuts the server down (fast shutdown: open sessions are ended, then
// SIGKILL if it has not exited within 30 s) and removes the cluster's
// directory. It is idempotent and safe to call concurrently; every call
// returns the first call's result.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.stopped = true
		var errs []error
		if err := c.shutdown(); err != nil {
			errs = append(errs, err)
		}
		if c.dir != "" {
			if err := os.RemoveAll(c.dir); err != nil {
				errs = append(errs, fmt.Errorf("remove %s: %w", c.dir, err))
			}
		}
		c.stopErr = errors.Join(errs...)
		if c.stopErr != nil {
			c.stopErr = fmt.Errorf("pgtest: stop cluster on port %d: %w", c.port, c.stopErr)
		}
		c.logf("pgtest: PostgreSQL on port %d stopped", c.port)
	})
	return c.stopErr
}

// Restart stops the server (fast shutdown, as Stop) and starts it again on
// the same port and data directory: for tests of reconnection, and of
// settings that need a restart (ALTER SYSTEM SET wal_level ...). Sessions
// and walsenders are ended; data, slots and publications survive.
func (c *Cluster) Restart(ctx context.Context) error { return c.restart(ctx, syscall.SIGINT) }

// RestartImmediate is Restart with an immediate shutdown (SIGQUIT, what
// `pg_ctl stop -m immediate` sends): no checkpoint, crash recovery at the
// start, as after a crash of the server.
func (c *Cluster) RestartImmediate(ctx context.Context) error { return c.restart(ctx, syscall.SIGQUIT) }

func (c *Cluster) restart(ctx context.Context, sig syscall.Signal) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return fmt.Errorf("pgtest: restart: cluster on port %d is stopped", c.port)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultWait)
		defer cancel()
	}
	if err := c.shutdownWith(sig); err != nil {
		return fmt.Errorf("pgtest: restart: %w", err)
	}
	if err := c.startServer(ctx, filepath.Join(c.dir, "data"), c.port); err != nil {
		return fmt.Errorf("pgtest: restart: %w", err)
	}
	c.logf("pgtest: PostgreSQL on port %d restarted", c.port)
	return nil
}

// shutdown stops the server if it runs: SIGINT, PostgreSQL's "fast"
// shutdown (what `pg_ctl stop -m fast` sends), then SIGKILL after stopWait.
// The caller holds c.mu.
func (c *Cluster) shutdown() error { return c.shutdownWith(syscall.SIGINT) }

// shutdownWith is shutdown sending sig first.
func (c *Cluster) shutdownWith(sig syscall.Signal) error {
	if c.srv == nil || c.srv.exited() {
		return nil
	}
	if err := c.srv.cmd.Process.Signal(sig); err != nil && !c.srv.exited() {
		return fmt.Errorf("signal postgres: %w", err)
	}
	select {
	case <-c.srv.done:
		return nil
	case <-time.After(stopWait):
		c.kill()
		return fmt.Errorf("postgres did not stop within %v; killed", stopWait)
	}
}

// ServerLog returns the last lines of the server's log, for a test to print
// when something went wrong on the server side.
func (c *Cluster) ServerLog() string { return c.logTail(0) }

// kill sends SIGKILL to the postmaster and waits for it. Its backends notice
// the postmaster's death and exit on their own.
func (c *Cluster) kill() {
	if c.srv == nil {
		return
	}
	_ = c.srv.cmd.Process.Kill()
	<-c.srv.done
}
