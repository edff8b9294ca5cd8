package torture

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	osexec "os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/internal/testkit/powercut"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/store"
)

// long selects the long mode of the crash loops (100 kills, 20 power
// cuts) instead of CI's short one.
var long = flag.Bool("torture.long", false, "run the long crash loops (100 kills, 20 power cuts)")

// The power-cut child: the test binary re-executed as `sidecar run`, its
// store synced through powercut.Syncer (the released binary has no such
// knob). childImageEnv names the image directory; childDropEnv=1 removes
// the sync (the Syncer does nothing).
const (
	childConfigEnv = "TORTURE_CHILD_CONFIG"
	childImageEnv  = "TORTURE_CHILD_IMAGE"
	childDropEnv   = "TORTURE_CHILD_DROP_SYNC"
)

// runChild is the power-cut child's main: it runs the daemon until
// SIGTERM.
func runChild() int {
	cfg, err := config.Load(config.LoadOptions{File: os.Getenv(childConfigEnv)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	syncer := powercut.New(os.Getenv(childImageEnv), os.Getenv(childDropEnv) == "1")
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	err = daemon.Run(ctx, daemon.Options{Config: cfg, Logger: logger,
		Store: func(o *store.Options) {
			o.Syncer = syncer
			// Small logs keep each image small (it is copied at every sync).
			o.MemTableSize, o.ValueLogFileSize = 4<<20, 16<<20
		},
		// Fewer, fuller syncs: each one copies the image.
		// StrictChecks: every tree a group flush makes is checked.
		Mirror: func(o *mirror.Options) { o.SyncInterval, o.StrictChecks = 100*time.Millisecond, true }})
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	logger.Info("power-cut child stopped", "images", syncer.Syncs())
	return 0
}

// crashKind is how a crash loop ends each child.
type crashKind int

const (
	kill9    crashKind = iota // SIGKILL of the real sidecar binary
	powerCut                  // SIGKILL of the power-cut child, then powercut.Restore
)

func (k crashKind) String() string { return [...]string{"kill -9", "power cut"}[k] }

// crashRig is one data directory followed by a sequence of children.
type crashRig struct {
	t            *testing.T
	url, key     string
	hostile, col string
	file         string // config
	dataDir      string
	image        string // power-cut image
	api          string // http://127.0.0.1:port
	binary       string // the real sidecar, for kill9
	fig          *figures
}

// newCrashRig makes the tables (as TestTorture does) and a config with a
// fixed free port, so every child listens where the test looks.
func newCrashRig(t *testing.T, fig *figures) *crashRig {
	url, hostile, col, key := hostileDB(t)
	addr := daemontest.FreeAddr(t)
	dir := t.TempDir()
	r := &crashRig{t: t, url: url, key: key, hostile: hostile, col: col, fig: fig,
		file: filepath.Join(dir, "sidecar.yaml"), dataDir: filepath.Join(dir, "data"),
		image: filepath.Join(dir, "image"), api: "http://" + addr}
	body := fmt.Sprintf("postgres:\n  url: %s\ntables: ['%s', public.counter]\ndata_dir: %s\nlisten: %s\nsql:\n  listen: \"\"\nstorage:\n  min_free: 64MiB\n",
		url, key, r.dataDir, addr)
	if err := os.WriteFile(r.file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return r
}

// child is one running sidecar.
type child = daemontest.Process

// start runs a child of kind (drop: the power-cut child without sync;
// extra: more arguments of the real binary's `run`).
func (r *crashRig) start(kind crashKind, drop bool, extra ...string) *child {
	r.t.Helper()
	var cmd *osexec.Cmd
	switch kind {
	case kill9:
		cmd = osexec.Command(r.sidecarBinary(), append([]string{"run", "--config", r.file}, extra...)...)
	case powerCut:
		cmd = osexec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childConfigEnv+"="+r.file, childImageEnv+"="+r.image)
		if drop {
			cmd.Env = append(cmd.Env, childDropEnv+"=1")
		}
	}
	return r.spawn(cmd)
}

// spawn starts cmd as a child, its output kept, killed with the test.
func (r *crashRig) spawn(cmd *osexec.Cmd) *child {
	r.t.Helper()
	return daemontest.StartProcess(r.t, cmd)
}

// kill ends c with SIGKILL (and, for a power cut, loses what it did not
// sync). It returns an error if c had already exited by itself.
func (r *crashRig) kill(c *child, kind crashKind) error {
	if err := c.Kill9(); err != nil {
		return err
	}
	if kind == powerCut {
		if _, err := powercut.Restore(r.dataDir, r.image); err != nil {
			r.t.Fatal(err)
		}
	}
	return nil
}

// stop ends c with SIGTERM and waits for a clean exit.
func (r *crashRig) stop(c *child) error { return c.Stop(90 * time.Second) }

// waitStreaming waits until c's durable LSN passes a marker committed now;
// an error if c exits first.
func (r *crashRig) waitStreaming(c *child, within time.Duration) error {
	lsn := marker(r.t, r.url)
	r.fig.txns.Add(1)
	var exited error
	daemontest.Poll(within, func() bool {
		if err, ok := c.Exited(); ok {
			exited = fmt.Errorf("the sidecar exited by itself (%v):\n%s", err, c.OutputTail())
			return true
		}
		d, phase, ok := status(r.api)
		return ok && d > lsn && phase == "streaming"
	})
	if exited != nil {
		return exited
	}
	if d, phase, ok := status(r.api); ok && d > lsn && phase == "streaming" {
		return nil
	}
	return fmt.Errorf("durable LSN did not pass %s within %v:\n%s", lsn, within, c.OutputTail())
}

// sidecarBinary builds cmd/sidecar once per rig.
func (r *crashRig) sidecarBinary() string {
	if r.binary == "" {
		r.binary = daemontest.Binary(r.t)
	}
	return r.binary
}

// crashLoop crashes n children of kind under the workload at random
// moments (seeded), then catches up with a clean child and checks the
// mirror. It returns what the checks found wrong (nil: nothing lost).
func (r *crashRig) crashLoop(kind crashKind, n int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 0xc4a5))
	wctx, wcancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		workload(wctx, r.url, r.hostile, r.col, rand.New(rand.NewPCG(seed+1, seed)), r.fig)
	}()
	defer func() { wcancel(); wg.Wait() }()
	for i := range n {
		c := r.start(kind, false)
		// Every crash once the child's API answers (its data directory
		// is open: a crash timed from the process's start lands, on a
		// loaded machine, before it has one), every other one once
		// streaming, so commits are acknowledged before it; then 0.2 to
		// 2.2 s: inside the initial copy, resumes and streamed
		// transactions as well as between commits.
		err := c.AwaitAPI(r.api, 120*time.Second)
		if err == nil && i%2 == 1 {
			err = r.waitStreaming(c, 120*time.Second)
		}
		if err != nil {
			return []string{fmt.Sprintf("%s %d: %v", kind, i, err)}
		}
		time.Sleep(time.Duration(200+rng.IntN(2000)) * time.Millisecond) // the crash's moment within the phase reached, not a wait
		if err := r.kill(c, kind); err != nil {
			return []string{fmt.Sprintf("%s %d: %v", kind, i, err)}
		}
		r.fig.faults[kind.String()]++
	}
	wcancel()
	wg.Wait()
	return r.catchUpAndCheck(kind)
}

// catchUpAndCheck starts a clean child, waits for it to apply everything,
// verifies through its API, stops it and compares the mirror with
// PostgreSQL and the counter across versions.
func (r *crashRig) catchUpAndCheck(kind crashKind) []string {
	c := r.start(kind, false)
	if err := r.waitStreaming(c, 180*time.Second); err != nil {
		return []string{"catch up: " + err.Error()}
	}
	var bad []string
	if v := verifyThroughAPI(r.t, r.api); v != "equal" {
		bad = append(bad, "verify: "+v)
	}
	if err := r.stop(c); err != nil {
		return append(bad, err.Error())
	}
	for _, tbl := range []string{r.key, "public.counter"} {
		_, got := mirrortest.MirrorRows(r.t, r.dataDir, tbl)
		want := mirrortest.PGRows(r.t, r.url, tbl)
		if !slices.Equal(got, want) {
			bad = append(bad, fmt.Sprintf("%s: mirror %d rows, PostgreSQL %d; they differ", tbl, len(got), len(want)))
		}
		r.fig.rowsCompared += len(want)
	}
	vs, last, err := mirrortest.CounterVersionsSampled(r.t, r.dataDir, "public.counter", 1, 100)
	if err != nil {
		bad = append(bad, "counter: "+err.Error())
	}
	if vs == 0 {
		bad = append(bad, "no version touched the counter (every crash before the first sync?)")
	}
	r.fig.versionsChecked += vs
	r.fig.lastCounter = last
	return bad
}

func crashCount(short, longN int) int {
	if *long {
		return longN
	}
	if s := os.Getenv("TORTURE_CRASHES"); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			return n
		}
	}
	return short
}

// seedFlag replays a failing random test: go test ./torture -run X -seed N
// (TORTURE_SEED=N still works; -seed wins when both are given).
var seedFlag = seed.Flag()

// tortureSeed is -seed, else TORTURE_SEED, else the clock; a failing t
// prints it as a -seed rerun.
func tortureSeed(t *testing.T) uint64 {
	t.Helper()
	def := uint64(time.Now().UnixNano())
	if s := os.Getenv("TORTURE_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("TORTURE_SEED=%q: %v", s, err)
		}
		def = v
	}
	return seed.Or(t, seedFlag, def)
}

func crashSeed(t *testing.T) uint64 {
	seed := tortureSeed(t)
	t.Logf("seed %d (replay: -seed=%d or TORTURE_SEED=%d)", seed, seed, seed)
	return seed
}

// TestKillLoop SIGKILLs the real sidecar binary under the write load (5
// times; 100 with -torture.long) and checks nothing was lost or doubled.
func TestKillLoop(t *testing.T) {
	seed := crashSeed(t)
	fig := &figures{seed: seed, faults: map[string]int{}}
	r := newCrashRig(t, fig)
	if bad := r.crashLoop(kill9, crashCount(5, 100), seed); len(bad) > 0 {
		t.Fatalf("seed %d: %s", seed, strings.Join(bad, "\n"))
	}
	reportCrash(t, "kill loop", fig)
}

// TestPowerCutLoop cuts the power of the sidecar (SIGKILL, then every
// write after its last sync is lost: powercut.Restore) under the write
// load (3 times; 20 with -torture.long) and checks nothing acknowledged
// was lost or doubled.
func TestPowerCutLoop(t *testing.T) {
	seed := crashSeed(t)
	fig := &figures{seed: seed, faults: map[string]int{}}
	r := newCrashRig(t, fig)
	if bad := r.crashLoop(powerCut, crashCount(3, 20), seed); len(bad) > 0 {
		t.Fatalf("seed %d: %s", seed, strings.Join(bad, "\n"))
	}
	reportCrash(t, "power cuts", fig)
}

// TestPowerCutWithoutSyncIsCaught removes the sync through the seam and
// shows the power-cut check notices: a clean first run, a run whose syncs
// do nothing while it acknowledges commits (the slot moves on), a power
// cut, then a normal run. The acknowledged commits are gone from the
// image and from the slot, so the restart must refuse (the mirror is
// behind its slot) or the checks must find rows or versions missing.
func TestPowerCutWithoutSyncIsCaught(t *testing.T) {
	seed := crashSeed(t)
	fig := &figures{seed: seed, faults: map[string]int{}}
	r := newCrashRig(t, fig)
	c := r.start(powerCut, false)
	if err := r.waitStreaming(c, 120*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := r.stop(c); err != nil {
		t.Fatal(err)
	}
	c = r.start(powerCut, true)
	if err := r.waitStreaming(c, 120*time.Second); err != nil {
		t.Fatal(err)
	}
	for range 5 { // acknowledged, never synced
		if err := r.waitStreaming(c, 30*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	waitSlotPast(t, r.url, marker(t, r.url))
	if err := r.kill(c, powerCut); err != nil {
		t.Fatal(err)
	}
	bad := r.catchUpAndCheck(powerCut)
	if len(bad) == 0 {
		t.Fatalf("seed %d: the sync was removed, yet the checks found nothing lost", seed)
	}
	t.Logf("the checks caught the removed sync:\n%s", strings.Join(bad, "\n"))
}

// waitSlotPast waits until the slot's confirmed_flush_lsn passes lsn (the
// sidecar acknowledged it).
func waitSlotPast(t *testing.T, url string, lsn fmt.Stringer) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var ok bool
		err := queryRow(url, "SELECT bool_and(confirmed_flush_lsn > $1::pg_lsn) FROM pg_replication_slots", []any{lsn.String()}, &ok)
		if err == nil && ok {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the slot's confirmed_flush_lsn did not pass %s within 30 s", lsn)
}

func reportCrash(t *testing.T, what string, fig *figures) {
	var faults []string
	for k, v := range fig.faults {
		faults = append(faults, fmt.Sprintf("%d %s", v, k))
	}
	t.Logf("%s: seed %d, survived %s; %d transactions committed (%d big, %d rolled back, %d workload errors retried); %d rows compared with PostgreSQL, %d consecutive counter versions (final %d); nothing lost",
		what, fig.seed, strings.Join(faults, ", "), fig.txns.Load(), fig.bigTxns.Load(), fig.rollbacks.Load(), fig.workloadErrors.Load(), fig.rowsCompared, fig.versionsChecked, fig.lastCounter)
}

func tailOf(s string) string { return daemontest.Tail(s) }

// exitsBySelf waits for c to exit on its own with an error whose output
// holds want.
func (r *crashRig) exitsBySelf(c *child, want string) error {
	err, ok := c.Wait(60 * time.Second)
	if !ok {
		return fmt.Errorf("the sidecar did not refuse within 60 s (want %q):\n%s", want, c.OutputTail())
	}
	if err == nil {
		return fmt.Errorf("the sidecar exited 0, want an error holding %q", want)
	}
	if out := c.Output(); !strings.Contains(out, want) {
		return fmt.Errorf("the sidecar failed (%v) without %q:\n%s", err, want, daemontest.Tail(out))
	}
	for _, l := range strings.Split(c.Output(), "\n") {
		if strings.HasPrefix(l, "Error:") {
			r.t.Logf("refused as it must: %.400s", l)
		}
	}
	return nil
}

// TestWrongDataDirAndSlotLoss (issue 16.1 and the slot-loss case) with
// the real binary under the write load: a start with an empty data
// directory beside the existing slot must refuse (it would recreate the
// slot and lose the real mirror's changes), the real directory then
// resumes; a start after the slot was dropped must refuse and say so,
// `run --resync` starts over; afterwards nothing is lost or doubled.
func TestWrongDataDirAndSlotLoss(t *testing.T) {
	seed := crashSeed(t)
	fig := &figures{seed: seed, faults: map[string]int{}}
	r := newCrashRig(t, fig)
	wctx, wcancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		workload(wctx, r.url, r.hostile, r.col, rand.New(rand.NewPCG(seed+1, seed)), fig)
	}()
	defer func() { wcancel(); wg.Wait() }()
	run := func(extra ...string) {
		t.Helper()
		c := r.start(kill9, false, extra...)
		if err := r.waitStreaming(c, 120*time.Second); err != nil {
			t.Fatal(err)
		}
		if err := r.stop(c); err != nil {
			t.Fatal(err)
		}
	}
	run()
	empty := filepath.Join(t.TempDir(), "unmounted")
	if err := r.exitsBySelf(r.start(kill9, false, "--data-dir", empty), "holds no mirror"); err != nil {
		t.Fatalf("wrong data directory: %v", err)
	}
	fig.faults["wrong data directory refused"]++
	run() // the real directory resumes
	exec(t, r.url, "SELECT pg_drop_replication_slot('sidecar')")
	if err := r.exitsBySelf(r.start(kill9, false), `replication slot "sidecar" lost`); err != nil {
		t.Fatalf("slot loss: %v", err)
	}
	fig.faults["slot loss refused"]++
	run("--resync")
	wcancel()
	wg.Wait()
	if bad := r.catchUpAndCheck(kill9); len(bad) > 0 {
		t.Fatalf("seed %d: %s", seed, strings.Join(bad, "\n"))
	}
	reportCrash(t, "wrong data directory and slot loss", fig)
}

// TestDiskFull runs the real binary with its data directory on a 96 MiB
// tmpfs the test mounts (root only: skipped otherwise, with the reason),
// fills the file system below storage.min_free under the write load, and
// wants a clean stop naming the full data_dir (no panic, no SIGBUS, no
// goroutine dump); once space is back the sidecar resumes and nothing is
// lost or doubled.
func TestDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a size-limited tmpfs needs root")
	}
	mnt := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=96m"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): a size-limited file system needs CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	seed := crashSeed(t)
	fig := &figures{seed: seed, faults: map[string]int{}}
	r := newCrashRig(t, fig)
	body, err := os.ReadFile(r.file)
	if err != nil {
		t.Fatal(err)
	}
	r.dataDir = filepath.Join(mnt, "data")
	body = regexp.MustCompile(`data_dir: .*\n`).ReplaceAll(body, []byte("data_dir: "+r.dataDir+"\n"))
	body = []byte(strings.Replace(string(body), "min_free: 64MiB", "min_free: 16MiB", 1))
	if err := os.WriteFile(r.file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		workload(wctx, r.url, r.hostile, r.col, rand.New(rand.NewPCG(seed+1, seed)), fig)
	}()
	defer func() { wcancel(); wg.Wait() }()
	c := r.start(kill9, false)
	if err := r.waitStreaming(c, 120*time.Second); err != nil {
		t.Fatal(err)
	}
	free, err := fillTo(mnt, 8<<20)
	if err != nil {
		t.Fatal(err)
	}
	ballast := filepath.Join(mnt, "ballast")
	t.Logf("filled the tmpfs: %d bytes were free, at most 8 MiB left", free)
	if err := r.exitsBySelf(c, "is full"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"goroutine ", "panic:", "SIGBUS"} {
		if strings.Contains(c.Output(), bad) {
			t.Errorf("the sidecar's output holds %q:\n%s", bad, c.OutputTail())
		}
	}
	fig.faults["disk full"]++
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	wcancel()
	wg.Wait()
	if bad := r.catchUpAndCheck(kill9); len(bad) > 0 {
		t.Fatalf("seed %d: %s", seed, strings.Join(bad, "\n"))
	}
	reportCrash(t, "disk full", fig)
}

// fillTo writes mnt/ballast until at most leave bytes are free and
// returns how many were free before. The sidecar writes to the same
// filesystem meanwhile, so it writes in chunks, re-reading the free
// space, and takes ENOSPC as done: a full disk is what the caller wants
// (one write sized from an earlier statfs failed when the daemon wrote
// in between).
func fillTo(mnt string, leave int64) (int64, error) {
	freeNow := func() (int64, error) {
		var st unix.Statfs_t
		if err := unix.Statfs(mnt, &st); err != nil {
			return 0, err
		}
		return int64(st.Bavail) * st.Bsize, nil
	}
	first, err := freeNow()
	if err != nil {
		return 0, err
	}
	f, err := os.Create(filepath.Join(mnt, "ballast"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for {
		free, err := freeNow()
		if err != nil {
			return 0, err
		}
		n := min(free-leave, int64(len(chunk)))
		if n <= 0 {
			return first, nil
		}
		if _, err := f.Write(chunk[:n]); err != nil {
			if errors.Is(err, unix.ENOSPC) {
				return first, nil
			}
			return 0, err
		}
	}
}
