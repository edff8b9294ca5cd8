package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/wal"
)

// memcapOverhead is the fixed overhead the memory budget does not cover:
// the Go runtime and binary, goroutine stacks, Badger's mapped tables and
// value-log pages (file-backed, reclaimable) and the kernel's page cache
// of the data directory, which a cgroup v1 memory cap charges too. The
// cap is memory.limit + memcapOverhead.
const memcapOverhead = 192 << 20

// TestMemoryCap runs the daemon (the real binary) inside a memory cgroup
// whose cap is memory.limit + memcapOverhead, through the initial copy,
// streaming writes, full scans and joins on the SQL port and a
// checkpoint (the clean stop's), and requires that it is never
// OOM-killed. It samples the process's RSS every 50 ms and reports the
// peak. Where no memory cgroup can be made (not root, no v1 memory
// controller and no delegated v2 one) the cap is an RSS watchdog instead:
// the test fails when the sampled RSS passes the cap.
//
// MEMCAP_ROWS sets the table size (default 200000), MEMCAP_LIMIT
// memory.limit (default 256MiB), MEMCAP_HEAP heap.memory (default: the
// budget's share); MEMCAP_BASELINE=1 omits the memory keys (for a build
// that has none: the failing case of issue 24 is MEMCAP_BASELINE=1
// MEMCAP_ROWS=3000000 MEMCAP_HEAP=64MiB MEMCAP_CAP=1GiB).
func TestMemoryCap(t *testing.T) {
	rows := envInt(t, "MEMCAP_ROWS", 200000)
	limit := envBytes(t, "MEMCAP_LIMIT", 256<<20)
	capBytes := limit + memcapOverhead
	if s := os.Getenv("MEMCAP_CAP"); s != "" {
		capBytes = envBytes(t, "MEMCAP_CAP", 0)
	}
	baseline := os.Getenv("MEMCAP_BASELINE") == "1"

	url := pg.NewDB(t)
	mustExec(t, url,
		"CREATE TABLE items (id int PRIMARY KEY, n bigint NOT NULL, note text)",
		fmt.Sprintf("INSERT INTO items SELECT g, g %% 1000, repeat('x', 40) || g FROM generate_series(1, %d) g", rows),
		"CREATE TABLE small (id int PRIMARY KEY, name text)",
		"INSERT INTO small SELECT g, 'name ' || g FROM generate_series(1, 1000) g",
	)
	file, _ := runConfig(t, url, "public.items, public.small")
	sqlAddr := freeLoopback(t)
	setSQLListen(t, file, sqlAddr)
	extra := "heap:\n  checkpoint_interval: 5s\n"
	if h := os.Getenv("MEMCAP_HEAP"); h != "" {
		extra += "  memory: " + h + "\n"
	}
	if !baseline {
		extra += fmt.Sprintf("memory:\n  limit: %d\n", limit)
	}
	appendFile(t, file, extra)

	cg := newMemCgroup(t, capBytes)
	p := sidecarProcess(t, "run", "--config", file)
	cg.add(t, p.cmd.Process.Pid)
	peak := sampleRSS(t, p.cmd.Process.Pid, capBytes, cg == nil)
	var base string
	step := func(what string) {
		anon, file := rssSplitKiB(p.cmd.Process.Pid)
		t.Logf("%-40s RSS %4d MiB (anon %d, file %d), peak %4d MiB (cap %d MiB)%s", what, peak.now()>>20, anon>>10, file>>10, peak.max()>>20, capBytes>>20, memoryParts(base))
		if cg != nil && cg.oomKills() > 0 {
			t.Fatalf("OOM-killed in the cgroup during %s (peak RSS %d MiB, cap %d MiB)\n%s", what, peak.max()>>20, capBytes>>20, tail(p.output(), 40))
		}
		if over := peak.over(); over != "" {
			t.Fatalf("%s: %s\n%s", what, over, tail(p.output(), 40))
		}
	}
	alive := func(what string) {
		err, exited := p.Exited()
		if !exited {
			return
		}
		if cg != nil && cg.oomKills() > 0 {
			t.Fatalf("OOM-killed during %s: %v (peak RSS %d MiB, cap %d MiB)\n%s", what, err, peak.max()>>20, capBytes>>20, tail(p.output(), 40))
		}
		t.Fatalf("sidecar exited during %s: %v\n%s", what, err, tail(p.output(), 40))
	}
	base = p.waitListen(t)
	// On a timeout below, the failure says why: the daemon's status, its
	// log's end and where every goroutine of it waits (the next CI
	// failure must not need a reproduction to be read).
	stuck := func() string { return memcapStuck(p, base) }
	daemontest.Eventually(t, "the initial copy and the in-memory HEAD", 30*time.Minute, func() bool { alive("the copy"); return headPhase(base) == "ready" }, stuck)
	step("initial copy + HEAD ready")

	// Streaming writes: a tenth of the rows updated in one transaction, a
	// fiftieth inserted in another. The target is read inside the
	// INSERT's transaction, after its rows: its commit ends past it, and
	// the durable LSN, which moves only by followed commits, reaches it
	// once that commit is durable. A target read after the commit waited
	// forever whenever WAL that is no followed commit came between
	// (autovacuum's ANALYZE of items after these writes, the bgwriter's
	// running_xacts, another test's database): CI failed so, 20 minutes
	// with every commit applied. Such WAL is written here on purpose.
	mustExec(t, url, "UPDATE items SET n = n + 1, note = note || 'u' WHERE id % 10 = 0")
	target := queryLSN(t, url, fmt.Sprintf(`WITH i AS (INSERT INTO items SELECT g, 1, 'new ' || g FROM generate_series(%d, %d) g RETURNING 1)
		SELECT pg_current_wal_insert_lsn()::text FROM (SELECT count(*) FROM i) c`, rows+1, rows+rows/50))
	mustExec(t, url, "CREATE TABLE not_followed (x int)", "INSERT INTO not_followed VALUES (1)")
	daemontest.Eventually(t, "the streamed writes", 20*time.Minute, func() bool {
		alive("the streamed writes")
		return statusDurable(base) >= target
	}, func() string { return fmt.Sprintf("target %s, durable %s", target, statusDurable(base)) }, stuck)
	step("streaming writes applied")
	total := int64(rows + rows/50)
	daemontest.Eventually(t, "HEAD at the writes", 10*time.Minute, func() bool {
		alive("the catch-up")
		n, _ := sqlQuery(sqlAddr, "SELECT count(*) FROM items")
		return n == total
	}, stuck)
	step("count(*) at the writes")

	// Full scans, a join with a small table and a self-join of the big
	// one (answered, or refused with 53200: never a dead process); on
	// sql/exec (derived tables) an aggregation with a group per row and a
	// self-join, which spill to <data_dir>/tmp past their share of
	// memory.query and must be answered (spill: 53200 is a failure).
	for _, q := range []struct {
		sql   string
		want  int64
		spill bool
	}{
		{sql: "SELECT count(*) FROM (SELECT id, count(*), max(note) FROM (SELECT * FROM items) s GROUP BY id) g", spill: true},
		{sql: "SELECT count(*) FROM (SELECT * FROM items) a JOIN items b ON a.id = b.id AND a.note = b.note", spill: true},
		{sql: "SELECT sum(n)::bigint FROM items"},
		{sql: "SELECT count(*) FROM items WHERE note LIKE '%7'"},
		{sql: "SELECT id::bigint FROM items ORDER BY note DESC, id LIMIT 1"},
		{sql: "SELECT count(*) FROM items i JOIN small s ON i.id = s.id"},
		{sql: "SELECT count(*) FROM items a JOIN items b ON a.id = b.id"},
	} {
		q.want = queryInt(t, url, q.sql)
		alive(q.sql)
		began := time.Now()
		got, err := sqlQueryWithin(sqlAddr, q.sql, 10*time.Minute)
		t.Logf("%s: %s", q.sql, time.Since(began).Round(time.Millisecond))
		var pe *pgconn.PgError
		switch {
		case errors.As(err, &pe) && pe.Code == "53200" && !q.spill:
			t.Logf("%s: refused with 53200 (%s)", q.sql, pe.Message)
		case err != nil:
			alive(q.sql)
			t.Fatalf("%s: %v\n%s", q.sql, err, stuck())
		case got != q.want:
			t.Fatalf("%s = %d, PostgreSQL says %d", q.sql, got, q.want)
		}
		step(q.sql[:min(len(q.sql), 40)])
	}

	// The clean stop checkpoints the in-memory HEAD.
	p.cmd.Process.Signal(syscall.SIGTERM)
	if _, ok := p.Wait(10 * time.Minute); !ok {
		t.Fatalf("sidecar did not exit within 10m after SIGTERM\n%s", stuck())
	}
	code := p.wait(t, time.Second)
	step("checkpoint at the clean stop")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, tail(p.output(), 40))
	}
	if !strings.Contains(p.output(), "in-memory HEAD checkpointed") {
		t.Errorf("no checkpoint at the clean stop\n%s", tail(p.output(), 40))
	}
	how := "cgroup v1/v2 memory cap"
	if cg == nil {
		how = "RSS watchdog (no memory cgroup here)"
	}
	t.Logf("memory cap: %d rows, memory.limit %d MiB, cap %d MiB (%s): peak RSS %d MiB, cgroup peak %d MiB",
		rows, limit>>20, capBytes>>20, how, peak.max()>>20, cg.peak()>>20)
}

// memcapStuck is what a timeout of TestMemoryCap reports: a goroutine
// dump of the daemon (SIGQUIT: the Go runtime prints every goroutine's
// stack and exits), goroutines of the same stack counted once, then its
// log's end and its /api/status — last, as CI keeps the end of a failed
// test's output. The daemon is gone afterwards.
func memcapStuck(p *proc, base string) string {
	status := ""
	if base != "" {
		// A bounded wait: a status handler stuck on a lock is a finding,
		// not a reason to hang here.
		c := http.Client{Timeout: 30 * time.Second}
		if resp, err := c.Get(base + "/api/status"); err != nil {
			status = fmt.Sprintf("/api/status: %v\n", err)
		} else {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			status = fmt.Sprintf("/api/status (HTTP %d):\n%s\n", resp.StatusCode, body)
		}
	}
	if _, exited := p.Exited(); exited {
		return fmt.Sprintf("the daemon had exited; its log's end:\n%s\n%s", tail(p.output(), 200), status)
	}
	before := len(p.output())
	p.cmd.Process.Signal(syscall.SIGQUIT)
	var b strings.Builder
	if _, ok := p.Wait(30 * time.Second); !ok {
		p.cmd.Process.Kill()
		b.WriteString("(no exit within 30 s of SIGQUIT)\n")
	}
	out := p.output()
	fmt.Fprintf(&b, "the daemon's goroutines at SIGQUIT:\n%s\n", groupGoroutines(out[before:]))
	fmt.Fprintf(&b, "its log before SIGQUIT (end):\n%s\n%s", tail(out[:before], 150), status)
	return b.String()
}

// groupGoroutines shortens a Go traceback: goroutines with the same state
// and stack are printed once with their count, their frames without
// arguments, offsets and frame pointers, runtime-internal goroutines
// left out.
func groupGoroutines(dump string) string {
	type group struct {
		head  string
		stack string
		n     int
	}
	var order []*group
	seen := map[string]*group{}
	for _, g := range strings.Split(dump, "\n\n") {
		lines := strings.Split(strings.TrimSpace(g), "\n")
		if len(lines) == 0 || !strings.HasPrefix(lines[0], "goroutine ") {
			continue
		}
		head := lines[0] // goroutine N gp=… m=… [state, minutes]:
		if i, j := strings.Index(head, "["), strings.LastIndex(head, "]"); i >= 0 && j > i {
			head = head[i : j+1]
		}
		var frames []string
		runtimeOnly := true
		for _, l := range lines[1:] {
			l = strings.TrimSpace(l)
			if i := strings.Index(l, " fp="); i >= 0 {
				l = l[:i]
			}
			if i := strings.Index(l, " +0x"); i >= 0 {
				l = l[:i]
			}
			if strings.HasSuffix(l, ")") && !strings.HasPrefix(l, "/") {
				if i := strings.LastIndex(l, "("); i > 0 {
					l = l[:i]
				}
			}
			switch {
			case strings.HasPrefix(l, "/"): // the file:line of the frame above
				if len(frames) > 0 && !strings.HasSuffix(frames[len(frames)-1], "\x00") {
					frames[len(frames)-1] += " " + l[strings.LastIndex(l[:strings.LastIndex(l, "/")], "/")+1:]
				}
			case strings.HasPrefix(l, "runtime.") || strings.HasPrefix(l, "created by runtime"):
				frames = append(frames, "\x00") // the state in the header says it
			default:
				runtimeOnly = false
				frames = append(frames, l)
			}
		}
		if runtimeOnly {
			continue
		}
		frames = slices.DeleteFunc(frames, func(f string) bool { return strings.HasSuffix(f, "\x00") })
		stack := strings.Join(frames, "\n    ")
		key := head + stack
		if gr := seen[key]; gr != nil {
			gr.n++
			continue
		}
		gr := &group{head: head, stack: stack, n: 1}
		seen[key] = gr
		order = append(order, gr)
	}
	var b strings.Builder
	for _, g := range order {
		fmt.Fprintf(&b, "%d× %s\n    %s\n", g.n, g.head, g.stack)
	}
	if b.Len() == 0 {
		return dump // not a traceback: as it came
	}
	return b.String()
}

// statusDurable is the durable LSN /api/status reports (0 when it does
// not answer).
func statusDurable(base string) wal.LSN {
	var st struct {
		Durable string `json:"durable_lsn"`
	}
	if getJSON(base+"/api/status", &st) != nil {
		return 0
	}
	l, _ := wal.ParseLSN(st.Durable)
	return l
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	if s := os.Getenv(name); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return n
	}
	return def
}

// envBytes reads a size such as 1GiB or 300MiB from the environment.
func envBytes(t *testing.T, name string, def int64) int64 {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"", 1}} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil {
				t.Fatalf("%s=%q: %v", name, s, err)
			}
			return n * u.mult
		}
	}
	return def
}

func queryInt(t *testing.T, url, sql string) int64 {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int64
	if err := conn.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func tail(s string, lines int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(l[max(0, len(l)-lines):], "\n")
}

// memCgroup is a memory cgroup made for one test (v1 or v2).
type memCgroup struct {
	dir string
	v2  bool
}

// newMemCgroup makes a memory cgroup capped at capBytes, removed at the
// end of the test; nil (and a log line saying why) when this machine
// cannot make one.
func newMemCgroup(t *testing.T, capBytes int64) *memCgroup {
	t.Helper()
	name := fmt.Sprintf("sidecar-memcap-%d-%d", os.Getpid(), time.Now().UnixNano())
	var cg *memCgroup
	if ctl, err := os.ReadFile("/sys/fs/cgroup/cgroup.controllers"); err == nil && bytes.Contains(ctl, []byte("memory")) {
		cg = &memCgroup{dir: filepath.Join("/sys/fs/cgroup", name), v2: true}
	} else if _, err := os.Stat("/sys/fs/cgroup/memory/memory.limit_in_bytes"); err == nil {
		cg = &memCgroup{dir: filepath.Join("/sys/fs/cgroup/memory", name)}
	} else {
		t.Logf("no memory cgroup controller here; the cap is an RSS watchdog")
		return nil
	}
	if err := os.Mkdir(cg.dir, 0o755); err != nil {
		t.Logf("cannot make a memory cgroup (%v); the cap is an RSS watchdog", err)
		return nil
	}
	t.Cleanup(func() {
		// The process has exited (Cleanup of sidecarProcess runs first,
		// being registered later); rmdir fails while it is still in.
		waitRemove := time.Now().Add(30 * time.Second)
		for os.Remove(cg.dir) != nil && time.Now().Before(waitRemove) {
			time.Sleep(100 * time.Millisecond)
		}
	})
	limitFile, swapFile := "memory.limit_in_bytes", "memory.memsw.limit_in_bytes"
	if cg.v2 {
		limitFile, swapFile = "memory.max", "memory.swap.max"
	}
	if err := os.WriteFile(filepath.Join(cg.dir, limitFile), []byte(strconv.FormatInt(capBytes, 10)), 0o644); err != nil {
		t.Fatalf("cap the cgroup: %v", err)
	}
	// No swap: a capped process must fit in RAM (absent file: no swap
	// accounting, and this machine has no swap).
	if cg.v2 {
		os.WriteFile(filepath.Join(cg.dir, swapFile), []byte("0"), 0o644)
	} else {
		os.WriteFile(filepath.Join(cg.dir, swapFile), []byte(strconv.FormatInt(capBytes, 10)), 0o644)
	}
	return cg
}

// add moves pid into the cgroup (at its start: what it allocated before
// stays charged where it was, a few MiB of runtime start-up).
func (cg *memCgroup) add(t *testing.T, pid int) {
	t.Helper()
	if cg == nil {
		return
	}
	if err := os.WriteFile(filepath.Join(cg.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		t.Fatalf("move the sidecar into %s: %v", cg.dir, err)
	}
}

// oomKills is how many processes the kernel killed in the cgroup.
func (cg *memCgroup) oomKills() int {
	file, key := "memory.oom_control", "oom_kill"
	if cg.v2 {
		file = "memory.events"
	}
	data, _ := os.ReadFile(filepath.Join(cg.dir, file))
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == key {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// peak is the cgroup's peak charge (RSS and page cache), 0 when unknown.
func (cg *memCgroup) peak() int64 {
	if cg == nil {
		return 0
	}
	file := "memory.max_usage_in_bytes"
	if cg.v2 {
		file = "memory.peak"
	}
	data, _ := os.ReadFile(filepath.Join(cg.dir, file))
	n, _ := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return n
}

// rssPeak is the sampled RSS of one process.
type rssPeak struct {
	cur, peak atomic.Int64
	mu        sync.Mutex
	overMsg   string
}

func (r *rssPeak) now() int64 { return r.cur.Load() }
func (r *rssPeak) max() int64 { return r.peak.Load() }
func (r *rssPeak) over() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.overMsg
}

// sampleRSS reads pid's VmRSS every 50 ms until the test ends; with
// watchdog set, an RSS above capBytes is recorded as a failure (over).
func sampleRSS(t *testing.T, pid int, capBytes int64, watchdog bool) *rssPeak {
	r := &rssPeak{}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if kb := vmRSSKiB(pid); kb > 0 {
				b := kb << 10
				r.cur.Store(b)
				if b > r.peak.Load() {
					r.peak.Store(b)
				}
				if watchdog && b > capBytes {
					r.mu.Lock()
					if r.overMsg == "" {
						r.overMsg = fmt.Sprintf("RSS %d MiB passed the cap of %d MiB", b>>20, capBytes>>20)
					}
					r.mu.Unlock()
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	return r
}

// vmRSSKiB is VmRSS of pid in KiB (0 when it is gone).
func vmRSSKiB(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// rssSplitKiB is RssAnon and RssFile of pid in KiB: anonymous memory (the
// Go heap, Badger's memtables) and mapped file pages (Badger's tables and
// value log, which the kernel reclaims under the cap).
func rssSplitKiB(pid int) (anon, file int64) {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(data), "\n") {
		for _, f := range []struct {
			prefix string
			dst    *int64
		}{{"RssAnon:", &anon}, {"RssFile:", &file}} {
			if rest, ok := strings.CutPrefix(line, f.prefix); ok {
				*f.dst, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			}
		}
	}
	return anon, file
}

// memoryParts is the daemon's memory budget parts as status reports them
// ("" when it does not answer), for the test log.
func memoryParts(base string) string {
	if base == "" {
		return ""
	}
	var st struct {
		Memory *struct {
			Parts []struct {
				Part   string `json:"part"`
				Budget int64  `json:"budget_bytes"`
				Used   *int64 `json:"used_bytes"`
			} `json:"parts"`
		} `json:"memory"`
	}
	if getJSON(base+"/api/status", &st) != nil || st.Memory == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range st.Memory.Parts {
		used := "-"
		if p.Used != nil {
			used = strconv.FormatInt(*p.Used>>20, 10)
		}
		fmt.Fprintf(&b, " %s %s/%d", p.Part, used, p.Budget>>20)
	}
	return "\n        parts (MiB used/budget):" + b.String()
}

// sqlQueryWithin is sqlQuery waiting up to within, not 60 s: a full
// scan on a loaded machine under a tight cap may take minutes.
func sqlQueryWithin(addr, sql string, within time.Duration) (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	cc, err := pgx.ParseConfig("postgres://sidecar@" + addr + "/sidecar?sslmode=disable")
	if err != nil {
		return -1, err
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return -1, err
	}
	defer conn.Close(context.Background())
	n := int64(-1)
	err = conn.QueryRow(ctx, sql).Scan(&n)
	return n, err
}
