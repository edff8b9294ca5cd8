// Package s3test starts a throwaway S3 server for tests: versitygw (a real
// S3 gateway, served as a Go module) over a POSIX directory in a temporary
// directory, on a free loopback port, with generated credentials and one
// bucket. Beside pgtest: a server never outlives the test binary (it is
// started with a parent-death signal from a thread that stays alive), Stop
// removes its directory, and Restart starts it again on the same port and
// directory.
//
// Clients reach the server through a small HTTP proxy in the test binary,
// so that a test can inject failures (FailNext: 503 SlowDown answers) and
// count requests by method (PUTs per commit group).
//
// The binary is looked up as $SIDECAR_VERSITYGW, versitygw on PATH,
// $GOBIN/versitygw, $HOME/go/bin/versitygw. When it is absent the test is
// skipped with the command that installs it, except under CI=true, where
// it fails: CI installs it (.ci/run).
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/sidecar-dev/sidecar/internal/testenv"
)

// Install is the command that installs the server binary.
const Install = "GOFLAGS=-mod=mod go install github.com/versity/versitygw/cmd/versitygw@v1.8.0"

// Server is a running versitygw with one bucket, behind a fault-injecting
// proxy.
type Server struct {
	// Endpoint is host:port of the proxy clients use (plain HTTP).
	Endpoint string
	// Bucket exists and is empty at Start.
	Bucket string
	// AccessKey and SecretKey are the generated root credentials.
	AccessKey, SecretKey string
	// Dir is the POSIX directory the gateway serves (one subdirectory per
	// bucket).
	Dir string

	bin     string
	backend string // host:port versitygw listens on
	proxy   *http.Server
	ln      net.Listener

	mu   sync.Mutex
	proc *proc

	fail   atomic.Int64 // requests still to answer 503
	lose   atomic.Int64 // requests still to serve without answering
	counts sync.Map     // method → *atomic.Int64
}

// Binary returns the path of the versitygw binary, or "" when none is found.
func Binary() string {
	if p := os.Getenv("SIDECAR_VERSITYGW"); p != "" {
		return p
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	var cands []string
	if gb := os.Getenv("GOBIN"); gb != "" {
		cands = append(cands, filepath.Join(gb, "versitygw"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		cands = append(cands, filepath.Join(home, "go", "bin", "versitygw"))
	}
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c
		}
	}
	return ""
}

// Start starts a server for t and stops it when t ends. It skips t when
// versitygw is absent (fails under CI=true).
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		testenv.Missing(t, "versitygw", "set SIDECAR_VERSITYGW or install it: "+Install)
	}
	s, err := start(bin, t.TempDir())
	if err != nil {
		t.Fatalf("s3test: %v", err)
	}
	t.Cleanup(s.Stop)
	t.Logf("s3test: versitygw at %s (proxy %s), bucket %s, dir %s", s.backend, s.Endpoint, s.Bucket, s.Dir)
	return s
}

func start(bin, tmp string) (*Server, error) {
	s := &Server{
		bin:       bin,
		Dir:       filepath.Join(tmp, "s3"),
		Bucket:    "sidecar-test",
		AccessKey: "AK" + randHex(9),
		SecretKey: randHex(20),
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s.backend = port
	if err := s.launch(); err != nil {
		return nil, err
	}
	if err := s.startProxy(); err != nil {
		s.kill()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := s.Client()
	if err != nil {
		s.Stop()
		return nil, err
	}
	if err := c.MakeBucket(ctx, s.Bucket, minio.MakeBucketOptions{}); err != nil {
		s.Stop()
		return nil, fmt.Errorf("make bucket %s: %w", s.Bucket, err)
	}
	return s, nil
}

// launch starts versitygw and waits until it accepts connections.
func (s *Server) launch() error {
	cmd := exec.Command(s.bin, "--port", s.backend, "posix", s.Dir)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+s.AccessKey, "ROOT_SECRET_KEY="+s.SecretKey)
	logf, err := os.OpenFile(filepath.Join(filepath.Dir(s.Dir), "versitygw.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	p, err := startProc(cmd)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.backend, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if p.exited() || time.Now().After(deadline) {
			p.kill()
			return fmt.Errorf("versitygw did not start listening on %s (log: %s)", s.backend, filepath.Join(filepath.Dir(s.Dir), "versitygw.log"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	return nil
}

func (s *Server) startProxy() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	target := &url.URL{Scheme: "http", Host: s.backend}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, err error) {
		// The gateway is down (Restart): what a client sees from a load
		// balancer in front of a restarting server.
		http.Error(w, err.Error(), http.StatusBadGateway)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.count(r.Method)
		if s.fail.Load() > 0 && s.fail.Add(-1) >= 0 {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate (injected by s3test).</Message></Error>`)
			return
		}
		if s.lose.Load() > 0 && s.lose.Add(-1) >= 0 {
			// The server does the request; its answer is dropped and
			// the client waits until it gives up (its context ends) or
			// a minute passes, then the connection is closed unanswered.
			rp.ServeHTTP(httptest.NewRecorder(), r)
			t := time.NewTimer(time.Minute)
			defer t.Stop()
			select {
			case <-r.Context().Done():
			case <-t.C:
			}
			panic(http.ErrAbortHandler)
		}
		// The Host header is kept: the request was signed for the proxy.
		rp.ServeHTTP(w, r)
	})
	s.ln = ln
	s.Endpoint = ln.Addr().String()
	s.proxy = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go s.proxy.Serve(ln) // owned by s: Stop shuts it down
	return nil
}

func (s *Server) count(method string) {
	v, _ := s.counts.LoadOrStore(method, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

// Requests returns how many requests with method (GET, PUT, HEAD, DELETE,
// POST) reached the proxy, injected failures included.
func (s *Server) Requests(method string) int64 {
	if v, ok := s.counts.Load(method); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}

// ResetCounts zeroes the request counts.
func (s *Server) ResetCounts() {
	s.counts.Range(func(k, _ any) bool { s.counts.Delete(k); return true })
}

// FailNext makes the next n requests fail with 503 SlowDown before they
// reach the server.
func (s *Server) FailNext(n int) { s.fail.Store(int64(n)) }

// LoseNextAnswers makes the next n requests reach the server and take
// effect while their answers are lost: the client gets none until its
// context ends (then a broken connection), as when a network drops the
// response of a write that landed.
func (s *Server) LoseNextAnswers(n int) { s.lose.Store(int64(n)) }

// Restart stops the gateway (SIGTERM, then SIGKILL after 10 s) and starts
// it again on the same port and directory; requests meanwhile get 502.
func (s *Server) Restart() error {
	s.kill()
	return s.launch()
}

// Client returns a minio client for the server with the root credentials.
func (s *Server) Client() (*minio.Client, error) {
	return minio.New(s.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""),
		Secure: false,
		Region: "us-east-1",
	})
}

// URL returns s3://bucket/prefix for prefix.
func (s *Server) URL(prefix string) string {
	return "s3://" + s.Bucket + "/" + strings.Trim(prefix, "/")
}

// Env returns the environment a sidecar process needs to reach the server
// (remote.* keys and AWS credentials variables).
func (s *Server) Env(prefix string) []string {
	return []string{
		"SIDECAR_REMOTE_URL=" + s.URL(prefix),
		"SIDECAR_REMOTE_ENDPOINT=http://" + s.Endpoint,
		"SIDECAR_REMOTE_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=" + s.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + s.SecretKey,
	}
}

// Stop stops the gateway and the proxy. Idempotent.
func (s *Server) Stop() {
	s.kill()
	if s.proxy != nil {
		s.proxy.Close()
	}
}

func (s *Server) kill() {
	s.mu.Lock()
	p := s.proc
	s.proc = nil
	s.mu.Unlock()
	if p != nil {
		p.stop()
	}
}

func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func randHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// proc is a child started from a goroutine locked to its OS thread, kept
// until the child exits: Pdeathsig fires when the forking *thread* exits
// (golang/go#27505), so the thread must live as long as the child.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startProc(cmd *exec.Cmd) (*proc, error) {
	p := &proc{cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() { // owned by p: ends when the child exits
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer close(p.done)
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		cmd.Wait()
	}()
	if err := <-started; err != nil {
		<-p.done
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	return p, nil
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) kill() {
	p.cmd.Process.Kill()
	<-p.done
}

// stop sends SIGTERM and waits up to 10 s before SIGKILL.
func (p *proc) stop() {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		p.kill()
		return
	}
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.kill()
	}
}
