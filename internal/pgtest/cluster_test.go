package pgtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pg is the cluster shared by the tests of this package.
var pg *Cluster

// helperEnv makes the test binary act as the child of TestServerDiesWithProcess.
const helperEnv = "PGTEST_HELPER_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(m.Run())
	}
	os.Exit(RunMain(m, Options{}, func(c *Cluster) { pg = c }))
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func show(t *testing.T, conn *pgx.Conn, setting string) string {
	t.Helper()
	var v string
	if err := conn.QueryRow(t.Context(), "SELECT current_setting($1)", setting).Scan(&v); err != nil {
		t.Fatalf("current_setting(%s): %v", setting, err)
	}
	return v
}

func TestClusterSettings(t *testing.T) {
	conn := connect(t, pg.URL("postgres"))
	want := map[string]string{
		"wal_level":             "logical",
		"max_replication_slots": "32",
		"max_wal_senders":       "32",
		"fsync":                 "off",
		"synchronous_commit":    "on",
		"full_page_writes":      "off",
		"listen_addresses":      "127.0.0.1",
		"port":                  strconv.Itoa(pg.Port()),
		"server_encoding":       "UTF8",
		"is_superuser":          "on",
	}
	for k, v := range want {
		if got := show(t, conn, k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if v := show(t, conn, "server_version_num"); v != strconv.Itoa(pg.ServerVersion()) || pg.ServerVersion() < 140000 {
		t.Errorf("ServerVersion() = %d, server says %s; want both equal and >= 140000", pg.ServerVersion(), v)
	}
	if n, _ := strconv.Atoi(show(t, conn, "max_connections")); n < 100 {
		t.Errorf("max_connections = %d, want >= 100", n)
	}
	if sock := show(t, conn, "unix_socket_directories"); !strings.HasPrefix(sock, pg.Dir()) {
		t.Errorf("unix_socket_directories = %q, want inside %s", sock, pg.Dir())
	}
	for _, tool := range []string{"initdb", "postgres", "pg_ctl"} {
		if _, err := os.Stat(filepath.Join(pg.BinDir(), tool)); err != nil {
			t.Errorf("BinDir %s lacks %s: %v", pg.BinDir(), tool, err)
		}
	}
}

func TestNewDBIsolated(t *testing.T) {
	urlA, urlB := pg.NewDB(t), pg.NewDB(t)
	if urlA == urlB {
		t.Fatalf("two NewDB calls returned the same URL %s", urlA)
	}
	a, b := connect(t, urlA), connect(t, urlB)
	if _, err := a.Exec(t.Context(), "CREATE TABLE only_in_a (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	var found *string
	if err := b.QueryRow(t.Context(), "SELECT to_regclass('only_in_a')::text").Scan(&found); err != nil {
		t.Fatal(err)
	}
	if found != nil {
		t.Errorf("table created in %s is visible in %s", urlA, urlB)
	}
	var dbA string
	if err := a.QueryRow(t.Context(), "SELECT current_database()").Scan(&dbA); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dbA, "t_testnewdbisolated_") {
		t.Errorf("database name %q is not derived from the test name", dbA)
	}
}

// TestLogicalDecoding checks that the cluster can do what replication needs:
// a pgoutput slot decoding a publication's changes.
func TestLogicalDecoding(t *testing.T) {
	conn := connect(t, pg.NewDB(t))
	ctx := t.Context()
	for _, q := range []string{
		"CREATE TABLE items (id int PRIMARY KEY, name text)",
		"CREATE PUBLICATION pub FOR TABLE items",
		"SELECT pg_create_logical_replication_slot('s', 'pgoutput')",
		"INSERT INTO items VALUES (1, 'one'), (2, 'two')",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rows, err := conn.Query(ctx, `SELECT data FROM pg_logical_slot_get_binary_changes('s', NULL, NULL,
		'proto_version', '2', 'publication_names', 'pub')`)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	inserts := 0
	for _, m := range msgs {
		kinds = append(kinds, string(m[0]))
		if m[0] == 'I' {
			inserts++
		}
	}
	// BEGIN, RELATION, 2 × INSERT, COMMIT.
	if inserts != 2 || kinds[0] != "B" || kinds[len(kinds)-1] != "C" {
		t.Errorf("pgoutput messages %v, want B ... I I ... C", kinds)
	}
}

// TestNewDBCleanup checks that NewDB's cleanup drops the database even with
// an open session, an idle slot and a slot held by a streaming walsender.
func TestNewDBCleanup(t *testing.T) {
	var name string
	var leftovers []*pgconn.PgConn
	defer func() {
		for _, c := range leftovers {
			c.Close(context.Background())
		}
	}()
	t.Run("inner", func(t *testing.T) {
		ctx := t.Context()
		url := pg.NewDB(t)
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		leftovers = append(leftovers, conn.PgConn()) // left open on purpose
		for _, q := range []string{
			"CREATE TABLE items (id int PRIMARY KEY)",
			"CREATE PUBLICATION pub FOR ALL TABLES",
			"SELECT pg_create_logical_replication_slot('idle_slot', 'pgoutput')",
			"SELECT pg_create_logical_replication_slot('busy_slot', 'pgoutput')",
		} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
		repl, err := pgconn.Connect(ctx, url+"&replication=database")
		if err != nil {
			t.Fatal(err)
		}
		leftovers = append(leftovers, repl)
		err = pglogrepl.StartReplication(ctx, repl, "busy_slot", 0, pglogrepl.StartReplicationOptions{
			Mode:       pglogrepl.LogicalReplication,
			PluginArgs: []string{"proto_version '2'", "publication_names 'pub'"},
		})
		if err != nil {
			t.Fatal(err)
		}
		var active bool
		if err := conn.QueryRow(ctx, "SELECT active FROM pg_replication_slots WHERE slot_name = 'busy_slot'").Scan(&active); err != nil || !active {
			t.Fatalf("busy_slot active = %v, %v; want an active slot for the test to mean anything", active, err)
		}
	})
	if name == "" {
		t.Fatal("inner test did not run")
	}
	conn := connect(t, pg.URL("postgres"))
	var dbs, slots int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&dbs); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_replication_slots WHERE database = $1", name).Scan(&slots); err != nil {
		t.Fatal(err)
	}
	if dbs != 0 || slots != 0 {
		t.Errorf("after cleanup: %d databases and %d slots named for %s remain", dbs, slots, name)
	}
}

// TestNewDBParallel creates databases from parallel tests, as packages
// using the harness will.
func TestNewDBParallel(t *testing.T) {
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			conn := connect(t, pg.NewDB(t))
			if _, err := conn.Exec(t.Context(), "CREATE TABLE x (id int PRIMARY KEY); INSERT INTO x VALUES (1)"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestCreateDBHostileName(t *testing.T) {
	name := `we"ird; DROP DATABASE postgres; --`
	url, err := pg.CreateDB(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := pg.DropDB(context.Background(), name); err != nil {
			t.Error(err)
		}
	}()
	conn := connect(t, url)
	var got string
	if err := conn.QueryRow(t.Context(), "SELECT current_database()").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != name {
		t.Errorf("connected to %q, want %q", got, name)
	}
	conn.Close(t.Context())
}

// TestStartOptionsAndStop starts a second cluster with non-default options
// and checks that Stop leaves nothing behind.
func TestStartOptionsAndStop(t *testing.T) {
	var logs []string
	before := serverGoroutines()
	c, err := Start(t.Context(), Options{
		WALLevel: "replica",
		Settings: map[string]string{"work_mem": "7MB", "application_name": "it's quoted"},
		Logf:     func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	if n := serverGoroutines(); n != before+1 {
		t.Errorf("%d goroutines in %s after Start, want %d", n, ServerGoroutine, before+1)
	}
	if c.Port() == pg.Port() {
		t.Fatalf("second cluster got the first one's port %d", c.Port())
	}
	conn, err := pgx.Connect(t.Context(), c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"wal_level": "replica", "work_mem": "7MB", "max_wal_senders": "32"} {
		var got string
		if err := conn.QueryRow(t.Context(), "SELECT current_setting($1)", k).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	// Restart applies a setting that needs one and keeps the data.
	for _, q := range []string{"CREATE TABLE kept (id int)", "ALTER SYSTEM SET wal_level = logical"} {
		if _, err := conn.Exec(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	oldPid := c.srv.cmd.Process.Pid
	if err := c.Restart(t.Context()); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	if alive(oldPid) {
		t.Errorf("old postmaster %d alive after Restart", oldPid)
	}
	if err := conn.Ping(t.Context()); err == nil {
		t.Errorf("a session survived Restart")
	}
	conn.Close(context.Background())
	conn, err = pgx.Connect(t.Context(), c.URL("postgres"))
	if err != nil {
		t.Fatalf("connect after Restart: %v", err)
	}
	var wal string
	var kept *string
	if err := conn.QueryRow(t.Context(), "SELECT current_setting('wal_level'), to_regclass('kept')::text").Scan(&wal, &kept); err != nil {
		t.Fatal(err)
	}
	if wal != "logical" || kept == nil {
		t.Errorf("after Restart: wal_level = %s, table kept = %v; want logical and the table", wal, kept)
	}

	pid := c.srv.cmd.Process.Pid
	dir := c.Dir()

	// Stop ends open sessions (fast shutdown), not waits for them.
	if err := c.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	conn.Close(context.Background())
	if err := c.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cluster dir %s still exists after Stop (stat: %v)", dir, err)
	}
	if alive(pid) {
		t.Errorf("postmaster %d still alive after Stop", pid)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	if conn, err := pgx.Connect(ctx, c.URL("postgres")); err == nil {
		conn.Close(ctx)
		t.Errorf("connected to a stopped cluster on port %d", c.Port())
	}
	if err := c.Restart(t.Context()); err == nil {
		t.Errorf("Restart of a stopped cluster succeeded")
	}
	for deadline := time.Now().Add(5 * time.Second); serverGoroutines() != before; {
		if time.Now().After(deadline) {
			t.Errorf("%d goroutines in %s after Stop, want %d", serverGoroutines(), ServerGoroutine, before)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Start's sweep may also log directories that other, dead processes
	// left under the temp dir: not this cluster's lines.
	logs = slices.DeleteFunc(logs, func(l string) bool { return strings.Contains(l, "left by dead process") })
	if len(logs) != 3 || !strings.Contains(logs[0], "started") || !strings.Contains(logs[1], "restarted") || !strings.Contains(logs[2], "stopped") {
		t.Errorf("Logf got %q, want a start and a stop line", logs)
	}
}

func TestStartFailureIncludesServerLog(t *testing.T) {
	_, err := Start(t.Context(), Options{Settings: map[string]string{"shared_buffers": "not-a-size"}})
	if err == nil {
		t.Fatal("Start with an invalid setting succeeded")
	}
	if !strings.Contains(err.Error(), "shared_buffers") {
		t.Errorf("error does not quote the server log: %v", err)
	}
}

func TestBinariesNotFound(t *testing.T) {
	none := binLookup{
		getenv:   func(string) string { return "" },
		lookPath: func(string) (string, error) { return "", exec.ErrNotFound },
		pgConfig: func() (string, error) { return "", exec.ErrNotFound },
		globRoot: t.TempDir(),
	}
	_, err := findBinDir(none)
	if !errors.Is(err, errNoBinaries) || !strings.Contains(err.Error(), "apt-get install postgresql") {
		t.Errorf("findBinDir with nothing installed: %v; want errNoBinaries and an install hint", err)
	}
	_, err = Start(t.Context(), Options{BinDir: t.TempDir()})
	if !errors.Is(err, errNoBinaries) || !strings.Contains(err.Error(), "apt-get install postgresql") {
		t.Errorf("Start with an empty BinDir: %v; want errNoBinaries and an install hint", err)
	}
}

func TestFindBinDirOrder(t *testing.T) {
	root := t.TempDir()
	mk := func(dir string) string {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"initdb", "postgres"} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for _, v := range []string{"9.6", "14", "16", "100"} {
		mk(filepath.Join(root, "lib", v, "bin"))
	}
	if err := os.MkdirAll(filepath.Join(root, "lib", "200", "bin"), 0o755); err != nil { // no server inside
		t.Fatal(err)
	}
	onPath := mk(filepath.Join(root, "opt", "pg", "bin"))
	link := filepath.Join(root, "usrbin")
	if err := os.MkdirAll(link, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(onPath, "initdb"), filepath.Join(link, "initdb")); err != nil {
		t.Fatal(err)
	}
	fromConfig := mk(filepath.Join(root, "cfg", "bin"))
	notFound := func(string) (string, error) { return "", exec.ErrNotFound }
	fromEnv := mk(filepath.Join(root, "env", "bin"))
	noEnv := func(string) string { return "" }
	l := binLookup{
		getenv:   noEnv,
		lookPath: func(string) (string, error) { return filepath.Join(link, "initdb"), nil },
		pgConfig: func() (string, error) { return fromConfig, nil },
		globRoot: filepath.Join(root, "lib"),
	}
	cases := []struct {
		name string
		edit func(*binLookup)
		want string
	}{
		{"SIDECAR_PG_BIN before all", func(l *binLookup) {
			l.getenv = func(k string) string {
				if k == EnvBinDir {
					return fromEnv
				}
				return ""
			}
		}, fromEnv},
		{"PATH first, symlink resolved", func(*binLookup) {}, onPath},
		{"pg_config second", func(l *binLookup) { l.lookPath = notFound }, fromConfig},
		{"highest version last", func(l *binLookup) {
			l.lookPath = notFound
			l.pgConfig = func() (string, error) { return "", exec.ErrNotFound }
		}, filepath.Join(root, "lib", "100", "bin")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := l
			tc.edit(&l)
			got, err := findBinDir(l)
			if err != nil || got != tc.want {
				t.Errorf("findBinDir = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestFindBinDirEnvWithoutServer(t *testing.T) {
	empty := t.TempDir()
	l := binLookup{
		getenv:   func(string) string { return empty },
		lookPath: func(string) (string, error) { t.Fatal("PATH consulted though SIDECAR_PG_BIN is set"); return "", nil },
		pgConfig: func() (string, error) { return "", exec.ErrNotFound },
		globRoot: t.TempDir(),
	}
	_, err := findBinDir(l)
	if !errors.Is(err, errNoBinaries) || !strings.Contains(err.Error(), EnvBinDir+"="+empty) {
		t.Errorf("findBinDir with an empty SIDECAR_PG_BIN: %v; want errNoBinaries naming the variable", err)
	}
}

func TestFindTool(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"14", "15", "9.6"} {
		dir := filepath.Join(root, v, "bin")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "psql"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	notFound := func(string) (string, error) { return "", exec.ErrNotFound }
	l := binLookup{
		getenv:   func(string) string { return "" },
		lookPath: notFound,
		pgConfig: func() (string, error) { return "", exec.ErrNotFound },
		globRoot: root,
	}
	if got, err := findTool(l, "psql"); err != nil || got != filepath.Join(root, "15", "bin", "psql") {
		t.Errorf("findTool(psql) = %q, %v; want the highest version's", got, err)
	}
	if _, err := findTool(l, "pgbench"); err == nil || !strings.Contains(err.Error(), "postgresql-client") {
		t.Errorf("findTool(pgbench) with none installed: %v; want an install hint", err)
	}
	// The running cluster: a client program is found whether or not its
	// bin dir has one (a fetch-postgres bin dir has none).
	p, err := pg.Tool("pg_recvlogical")
	if err != nil {
		t.Fatalf("Tool(pg_recvlogical) for %s: %v", pg.BinDir(), err)
	}
	if out, err := exec.Command(p, "--version").CombinedOutput(); err != nil || !strings.Contains(string(out), "pg_recvlogical") {
		t.Errorf("%s --version: %q, %v", p, out, err)
	}
}

func TestDBName(t *testing.T) {
	long := strings.Repeat("Abc/", 40)
	cases := []struct {
		test string
		seq  uint64
		want string
	}{
		{"TestFoo", 1, "t_testfoo_1"},
		{"TestFoo/sub case#01", 12, "t_testfoo_sub_case_01_12"},
		{"Test/ÜnicØde--", 3, "t_test_nic_de_3"},
		{long, 123456, ("t_" + strings.Repeat("abc_", 15))[:63-7] + "_123456"},
	}
	for _, tc := range cases {
		got := dbName(tc.test, tc.seq)
		if got != tc.want {
			t.Errorf("dbName(%q, %d) = %q, want %q", tc.test, tc.seq, got, tc.want)
		}
		if len(got) > maxDBName {
			t.Errorf("dbName(%q) = %q is %d bytes, over PostgreSQL's %d", tc.test, got, len(got), maxDBName)
		}
	}
}

// TestServerDiesWithProcess SIGKILLs a test binary that runs a cluster and
// checks that the server dies with it (parent-death signal) and that the next
// sweep removes the directory it left.
func TestServerDiesWithProcess(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperChild$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var pid int
	var dir string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "READY %d %s", &pid, &dir); err == nil {
			break
		}
	}
	if pid == 0 {
		t.Fatalf("child never reported its cluster (scan: %v)", sc.Err())
	}
	if !alive(pid) {
		t.Fatalf("postmaster %d not running before the kill", pid)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("postmaster %d outlived its SIGKILLed parent by 10 s", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("expected the killed child to leave %s behind: %v", dir, err)
	}
	sweepStale(filepath.Dir(dir), t.Logf)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("sweepStale left %s (stat: %v)", dir, err)
	}
}

// TestHelperChild is the child process of TestServerDiesWithProcess.
func TestHelperChild(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("child process of TestServerDiesWithProcess")
	}
	c, err := Start(t.Context(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("READY %d %s\n", c.srv.cmd.Process.Pid, c.Dir())
	time.Sleep(time.Minute) // killed by the parent long before
	c.Stop()
}

// serverGoroutines counts the goroutines running ServerGoroutine.
func serverGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), ServerGoroutine+"(")
}
