package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/s3test"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/remote"
)

// TestRemoteKill9Restore: `sidecar run` with remote.upload and
// remote.sync_ack under a write workload is killed with SIGKILL at random
// points (uploads run every 200 ms and after every group) and restarted;
// after the last kill the machine is taken as lost: a second data
// directory is restored with `sidecar run --from-remote`, which takes the
// lease once it expired, continues following the same slot, catches up,
// and must equal PostgreSQL row by row with every counter version
// consecutive — nothing acknowledged was lost. REMOTE_KILLS overrides the
// number of kills (default 4); -seed replays.
func TestRemoteKill9Restore(t *testing.T) {
	srv := s3test.Start(t)
	kills, seed := crashParams(t, "REMOTE_KILLS", 4)
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)

	url := pg.NewDB(t)
	crashTables(t, url, 20000)
	remoteCfg := fmt.Sprintf("remote:\n  url: %s\n  endpoint: http://%s\n  upload: true\n  sync_ack: true\n  interval: 200ms\n  lease_ttl: 30s\n  holder: %%s\n",
		srv.URL("writer"), srv.Endpoint)
	file, _ := runConfig(t, url, "public.counter, public.items")
	appendFile(t, file, fmt.Sprintf(remoteCfg, "first"))

	ctx, stopLoad := context.WithCancel(context.Background())
	defer stopLoad()
	var txns, bigTxns atomic.Int64
	loadDone := make(chan error, 1)
	go func() { loadDone <- crashWorkload(ctx, url, seed, &txns, &bigTxns, 0) }()
	killRuns(t, file, kills, killTiming{streamFrom: 1, pause: func(int) time.Duration { return time.Duration(700+rng.IntN(2500)) * time.Millisecond }}, nil)
	stopLoad()
	if err := <-loadDone; err != nil {
		t.Fatal(err)
	}
	c := remoteTestClient(t, srv, "writer")
	m, _, err := remote.ReadManifest(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	slot := queryLSN(t, url, "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = 'sidecar'")
	t.Logf("%d kills, %d transactions (%d big); remote-durable %s (epoch %d, %d packs, %d segments), slot confirmed %s",
		kills, txns.Load(), bigTxns.Load(), m.Durable, m.Epoch, len(m.Packs), len(m.Segments), slot)
	if slot > m.Durable && m.Settled < slot {
		t.Fatalf("sync_ack: the slot was acknowledged to %s, past the remote-durable %s", slot, m.Durable)
	}

	// The first machine is gone: restore elsewhere once its lease expired.
	file2, dataDir2 := runConfig(t, url, "public.counter, public.items")
	appendFile(t, file2, fmt.Sprintf(remoteCfg, "successor"))
	// While the dead writer's lease runs: refused, naming the holder. A
	// start that is not refused would run on as a daemon: it is stopped
	// after 2 min, and fails the test, instead of hanging it. The lease
	// is held live (its expiry moved 10 min on) until the refusal came:
	// the successor reads it only after opening its store, and at load
	// 60 that alone took 44 s, past the 30 s lease, so it took over (seen).
	putBack := holdLease(t, c, 10*time.Minute)
	refuseCtx, cancelRefuse := context.WithTimeout(context.Background(), 2*time.Minute)
	out, errOut, code := sidecarCtx(t, refuseCtx, "run", "--from-remote", "--config", file2)
	cancelRefuse()
	if code == 0 || !strings.Contains(errOut, "held by another sidecar") || !strings.Contains(errOut, `"first"`) {
		t.Fatalf("successor while the lease is live: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("refused while the lease is live: %s", errorLine(errOut))
	putBack()
	// Then wait out the lease it names. Its TTL (30 s) is long enough for
	// the refusal above to come while it runs on a loaded machine (with
	// 2 s, then 10 s at load 40-50, the steps since the last kill outlasted
	// it), and for the writer's renewals not to miss it under load.
	waitLeaseExpired(t, c)
	p := sidecarProcess(t, "run", "--from-remote", "--config", file2)
	defer func() {
		if t.Failed() {
			t.Logf("restored sidecar's log:\n%s", p.output())
		}
	}()
	base := p.waitListen(t)
	// The successor writes history of its own: its restored store counts
	// versions from the start again, below the last segment's, and its
	// uploads must still carry every record (the third restore checks).
	ctx2, stopLoad2 := context.WithCancel(context.Background())
	go func() { loadDone <- crashWorkload(ctx2, url, seed+1, &txns, &bigTxns, 0) }()
	time.Sleep(2 * time.Second)
	stopLoad2()
	if err := <-loadDone; err != nil {
		t.Fatal(err)
	}
	target := catchUpAndStop(t, url, base, p)
	if strings.Contains(p.output(), "final remote upload failed") {
		t.Fatal("the final upload at shutdown failed")
	}
	checkMirrorEqualsPG(t, dataDir2, url, seed)
	checkCounterVersions(t, dataDir2, seed, 10)
	m2, _, err := remote.ReadManifest(context.Background(), c)
	if err != nil || m2.Holder != "successor" || m2.Epoch <= m.Epoch || m2.Durable <= target {
		t.Fatalf("manifest after the successor: %+v, %v", m2, err)
	}
	t.Logf("successor: epoch %d, remote-durable %s; %d PUT, %d GET requests in all", m2.Epoch, m2.Durable, srv.Requests("PUT"), srv.Requests("GET"))

	// A third machine restores what the successor uploaded (its lease was
	// released at its clean stop): every version, the successor's too.
	file3, dataDir3 := runConfig(t, url, "public.counter, public.items")
	appendFile(t, file3, fmt.Sprintf(remoteCfg, "third"))
	p3 := sidecarProcess(t, "run", "--from-remote", "--config", file3)
	defer func() {
		if t.Failed() {
			t.Logf("third sidecar's log:\n%s", p3.output())
		}
	}()
	catchUpAndStop(t, url, p3.waitListen(t), p3)
	checkMirrorEqualsPG(t, dataDir3, url, seed)
	checkCounterVersions(t, dataDir3, seed, 10)
}

// holdLease moves the expiry of c's prefix's lease d from now, by CAS,
// and returns what puts the lease back as it was (by CAS too: a sidecar
// that took the lease meanwhile fails the test). The holder and epoch are
// kept: to a sidecar reading it, the writer that held it is still live.
func holdLease(t *testing.T, c *remote.Client, d time.Duration) (putBack func()) {
	t.Helper()
	ctx := context.Background()
	body, etag, err := c.Get(ctx, "lease.json")
	if err != nil {
		t.Fatalf("reading the lease: %v", err)
	}
	var l map[string]json.RawMessage
	if err := json.Unmarshal(body, &l); err != nil {
		t.Fatalf("lease %q: %v", body, err)
	}
	l["expires"], _ = json.Marshal(time.Now().Add(d).UTC())
	held, _ := json.Marshal(l)
	tag, err := c.Put(ctx, "lease.json", held, remote.Cond{IfMatch: etag})
	if err != nil {
		t.Fatalf("holding the lease %s: %v", body, err)
	}
	return func() {
		t.Helper()
		if _, err := c.Put(ctx, "lease.json", body, remote.Cond{IfMatch: tag}); err != nil {
			t.Fatalf("putting the lease back (%s): %v", body, err)
		}
	}
}

// waitLeaseExpired waits until the lease of c's prefix has expired (by
// this machine's clock, which the writers share), at most a minute.
func waitLeaseExpired(t *testing.T, c *remote.Client) {
	t.Helper()
	body, _, err := c.Get(context.Background(), "lease.json")
	if err != nil {
		t.Fatalf("reading the lease: %v", err)
	}
	var l struct {
		Expires time.Time `json:"expires"`
	}
	if err := json.Unmarshal(body, &l); err != nil {
		t.Fatalf("lease %q: %v", body, err)
	}
	wait := time.Until(l.Expires) + 200*time.Millisecond
	if wait > time.Minute {
		t.Fatalf("the lease expires at %s, over a minute away", l.Expires)
	}
	t.Logf("waiting %v for the lease to expire", wait.Round(time.Millisecond))
	time.Sleep(wait)
}

func appendFile(t *testing.T, file, s string) {
	t.Helper()
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func remoteTestClient(t *testing.T, srv *s3test.Server, prefix string) *remote.Client {
	t.Helper()
	loc, err := remote.ParseURL(srv.URL(prefix))
	if err != nil {
		t.Fatal(err)
	}
	c, err := remote.NewClient(remote.Config{Location: loc, Endpoint: "http://" + srv.Endpoint, Region: "us-east-1", AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRemoteFollowerServe: a writer uploads under a write load while
// `sidecar serve --remote` follows it from its own data_dir with no
// PostgreSQL connection; once the follower holds the writer's
// remote-durable LSN, log, diff (table and JSON) and get answered by the
// follower's API equal the writer's, byte for byte.
func TestRemoteFollowerServe(t *testing.T) {
	srv := s3test.Start(t)
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	url := pg.NewDB(t)
	crashTables(t, url, 20000)
	remoteCfg := fmt.Sprintf("remote:\n  url: %s\n  endpoint: http://%s\n  upload: true\n  interval: 200ms\n", srv.URL("shared"), srv.Endpoint)
	wfile, _ := runConfig(t, url, "public.counter, public.items")
	appendFile(t, wfile, remoteCfg)
	ffile, _ := runConfig(t, url, "public.counter, public.items")
	appendFile(t, ffile, fmt.Sprintf("remote:\n  endpoint: http://%s\n", srv.Endpoint))
	// Both APIs on fixed ports, so commands given a config find them.
	setListen(t, wfile, freeLoopback(t))
	setListen(t, ffile, freeLoopback(t))

	w := sidecarProcess(t, "run", "--config", wfile)
	wbase := w.waitListen(t)
	ctx, stopLoad := context.WithCancel(context.Background())
	defer stopLoad()
	var txns, big atomic.Int64
	loadSeed := int64(seed.New(t, seedFlag))
	loadDone := make(chan error, 1)
	go func() { loadDone <- crashWorkload(ctx, url, loadSeed, &txns, &big, 0) }()
	time.Sleep(time.Second)
	f := sidecarProcess(t, "serve", "--remote", srv.URL("shared"), "--refresh", "200ms", "--config", ffile)
	defer func() {
		if t.Failed() {
			t.Logf("follower's log:\n%s", f.output())
			t.Logf("writer's log:\n%s", w.output())
		}
	}()
	fbase := f.waitListen(t)
	time.Sleep(2 * time.Second) // the follower refreshes while the writer uploads
	// The comparisons below reach back to HEAD~200: the writer must hold
	// that many versions before its HEAD. A count of committed
	// transactions does not say so: the load starts beside the writer's
	// initial copy, and what commits before the copy's snapshot is in the
	// copy, not a version of its own (434 transactions left 130 versions
	// after the copy at load 28, and HEAD~200 failed to resolve on both
	// sides), so the load runs until the writer resolves HEAD~200 itself.
	const versionsWait = 4 * time.Minute
	for deadline := time.Now().Add(versionsWait); ; time.Sleep(100 * time.Millisecond) {
		if code, _ := httpBodyNoT(wbase + "/api/resolve?ref=HEAD~200"); code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the writer holds no HEAD~200 after %v of load (%d transactions committed)", versionsWait, txns.Load())
		}
	}
	stopLoad()
	if err := <-loadDone; err != nil {
		t.Fatal(err)
	}
	t.Logf("load: %d transactions (%d big)", txns.Load(), big.Load())
	// The target is read inside the marker's transaction: durable LSNs
	// move only with followed commits, so a target read on its own could
	// lie past unrelated WAL no followed commit ever reaches.
	target := queryLSN(t, url, `WITH u AS (UPDATE counter SET k = k + 1 WHERE id = 1 RETURNING 1)
		SELECT pg_current_wal_insert_lsn()::text FROM (SELECT count(*) FROM u) c`)
	remoteDurable := waitRemoteDurable(t, "the writer's upload past the last commit", wbase, target+1, 60*time.Second)
	waitDurable(t, "the follower at the writer's remote-durable LSN", fbase, remoteDurable, 60*time.Second)
	// Both at the same HEAD: compare what they answer.
	for _, args := range [][]string{
		{"log", "-n", "30"},
		{"diff", "HEAD~40", "HEAD"},
		{"diff", "HEAD~200", "HEAD~3", "--format", "json"},
		{"get", "public.counter", "1"},
		{"get", "public.items", "17", "--as-of", "HEAD~25"},
	} {
		wout, werr, wcode := sidecar(t, append(args, "--config", wfile)...)
		fout, ferr, fcode := followerCLI(t, append(args, "--config", ffile)...)
		if wcode != 0 || fcode != 0 || wout != fout {
			t.Fatalf("%v: writer exit %d (%d bytes), follower exit %d (%d bytes)\nwriter: %s%s\nfollower: %s%s", args, wcode, len(wout), fcode, len(fout), firstLines(wout), werr, firstLines(fout), ferr)
		}
		t.Logf("%v: identical (%d bytes)", args, len(wout))
	}
	if !strings.Contains(f.output(), "follower brought forward") {
		t.Fatal("the follower never refreshed")
	}

	// A fork of the shared history (sidecar fork) copies nothing: its
	// manifest names the origin's packs; a follower of the fork answers
	// as the follower of the origin does.
	out, errOut, code := sidecar(t, "fork", "--from", srv.URL("shared"), "--to", srv.URL("forked"), "--config", ffile)
	if code != 0 || !strings.Contains(out, "nothing copied") {
		t.Fatalf("fork: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("fork: %s", strings.TrimSpace(out))
	if _, errOut, code := sidecar(t, "fork", "--from", srv.URL("shared"), "--to", srv.URL("forked"), "--config", ffile); code != 2 || !strings.Contains(errOut, "already holds a history") {
		t.Fatalf("a second fork into the same prefix: exit %d\n%s", code, errOut)
	}
	fm, _, err := remote.ReadManifest(context.Background(), remoteTestClient(t, srv, "forked"))
	if err != nil || len(fm.Packs) == 0 {
		t.Fatalf("fork's manifest: %+v, %v", fm, err)
	}
	for _, p := range fm.Packs {
		if p.Prefix != "shared" {
			t.Fatalf("the fork's pack %+v is not the origin's", p)
		}
	}
	kfile, _ := runConfig(t, url, "public.counter, public.items")
	appendFile(t, kfile, fmt.Sprintf("remote:\n  endpoint: http://%s\n", srv.Endpoint))
	setListen(t, kfile, freeLoopback(t))
	k := sidecarProcess(t, "serve", "--remote", srv.URL("forked"), "--refresh", "200ms", "--config", kfile)
	defer func() {
		if t.Failed() {
			t.Logf("fork follower's log:\n%s", k.output())
		}
	}()
	kbase := k.waitListen(t)
	waitDurable(t, "the fork's follower at the fork's LSN", kbase, fm.Durable, 60*time.Second)
	for _, args := range [][]string{
		{"diff", "HEAD~40", "HEAD"},
		{"get", "public.items", "17", "--as-of", "HEAD~25"},
	} {
		fout, ferr, fcode := followerCLI(t, append(args, "--config", ffile)...)
		kout, kerr, kcode := followerCLI(t, append(args, "--config", kfile)...)
		if fcode != 0 || kcode != 0 || fout != kout {
			t.Fatalf("%v: origin's follower exit %d, fork's follower exit %d\norigin: %s%s\nfork: %s%s", args, fcode, kcode, firstLines(fout), ferr, firstLines(kout), kerr)
		}
		t.Logf("%v on the fork: identical (%d bytes)", args, len(kout))
	}
	k.cmd.Process.Signal(syscall.SIGTERM)
	w.cmd.Process.Signal(syscall.SIGTERM)
	f.cmd.Process.Signal(syscall.SIGTERM)
	if code := f.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("follower exit %d", code)
	}
	if code := k.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("fork follower exit %d", code)
	}
	w.wait(t, 60*time.Second)
}

func firstLines(s string) string {
	lines := strings.SplitN(s, "\n", 6)
	return strings.Join(lines[:min(5, len(lines))], "\n") + "\n"
}

func setListen(t *testing.T, file, addr string) {
	t.Helper()
	body, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(body), "listen: 127.0.0.1:0", "listen: "+addr, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
}

func freeLoopback(t *testing.T) string {
	t.Helper()
	return daemontest.FreeAddr(t)
}

// followerCLI runs a read command against a `sidecar serve --remote`
// follower. The follower stops its API while a refresh brings it forward
// to a new manifest (the writer writes one now and then with no commit)
// and starts it again on the same address: a command told meanwhile that
// the API does not answer (the client then finds the data directory
// held: client.ErrNotReady) is run again, up to the rig's ceiling.
func followerCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	daemontest.Poll(0, func() bool {
		stdout, stderr, code = sidecar(t, args...)
		return code == 0 || !strings.Contains(stderr, "does not answer") && !strings.Contains(stderr, "connection refused")
	})
	return stdout, stderr, code
}
