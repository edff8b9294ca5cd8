package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func start(t *testing.T, opts Options) string {
	t.Helper()
	opts.Addr = "127.0.0.1:0"
	s, err := Listen(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.HandleAPI("GET /api/ping", func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, http.StatusOK, map[string]string{"pong": "yes"})
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "http://" + s.Addr()
}

func get(t *testing.T, url, token string) (int, map[string]any, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(body, &m)
	return resp.StatusCode, m, string(body)
}

func TestHealthReadyAndMetrics(t *testing.T) {
	var ready atomic.Bool
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "sidecar_test_total", Help: "x"})
	reg.MustRegister(c)
	c.Add(2)
	base := start(t, Options{Gatherer: reg, Ready: func(context.Context) (bool, string) {
		if ready.Load() {
			return true, ""
		}
		return false, "copying public.t: 10 of 100 ranges"
	}})
	if code, m, _ := get(t, base+"/healthz", ""); code != 200 || m["status"] != "alive" {
		t.Errorf("healthz %d %v", code, m)
	}
	code, m, _ := get(t, base+"/readyz", "")
	if code != http.StatusServiceUnavailable || !strings.Contains(m["reason"].(string), "copying") {
		t.Errorf("readyz not ready: %d %v", code, m)
	}
	ready.Store(true)
	if code, _, _ := get(t, base+"/readyz", ""); code != 200 {
		t.Errorf("readyz ready: %d", code)
	}
	if code, _, body := get(t, base+"/metrics", ""); code != 200 || !strings.Contains(body, "sidecar_test_total 2") {
		t.Errorf("metrics %d %s", code, body)
	}
}

func TestTokenGuardsAPIOnly(t *testing.T) {
	base := start(t, Options{Token: "t0ken"})
	if code, m, _ := get(t, base+"/api/ping", ""); code != 401 || !strings.Contains(m["error"].(string), "bearer token") {
		t.Errorf("no token: %d %v", code, m)
	}
	if code, _, _ := get(t, base+"/api/ping", "wrong"); code != 401 {
		t.Errorf("wrong token: %d", code)
	}
	if code, m, _ := get(t, base+"/api/ping", "t0ken"); code != 200 || m["pong"] != "yes" {
		t.Errorf("right token: %d %v", code, m)
	}
	if code, _, _ := get(t, base+"/healthz", ""); code != 200 {
		t.Errorf("healthz needs no token: %d", code)
	}
	if code, m, _ := get(t, base+"/api/nope", "t0ken"); code != 404 || !strings.Contains(m["error"].(string), "/api/nope") {
		t.Errorf("unknown path: %d %v", code, m)
	}
}

func TestPortClashFailsAtListen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Listen(Options{Addr: ln.Addr().String()})
	if err == nil || !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Fatalf("want a bind error naming the address, got %v", err)
	}
}

func TestServeStopsWithContext(t *testing.T) {
	s, err := Listen(Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second): // generous: a regression never returns
		t.Fatal("Serve did not return after cancel")
	}
}

// TestShutdownCutsAStuckClient: a streamed answer blocked on a client
// that stopped reading does not make the daemon's shutdown fail or hang:
// after the grace its connection is closed and Serve returns nil.
func TestShutdownCutsAStuckClient(t *testing.T) {
	s, err := Listen(Options{Addr: "127.0.0.1:0", ShutdownGrace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	writing := make(chan struct{})
	var once atomic.Bool
	s.HandleAPI("GET /api/stream", func(w http.ResponseWriter, r *http.Request) {
		// Ignores its context, as a write blocked in the kernel does.
		line := []byte(strings.Repeat("x", 64<<10) + "\n")
		for {
			if _, err := w.Write(line); err != nil {
				return
			}
			if once.CompareAndSwap(false, true) {
				close(writing)
			}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET /api/stream HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	<-writing // the client never reads: the server's writes fill the socket and block
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
		if d := time.Since(start); d < 250*time.Millisecond {
			t.Fatalf("Serve returned after %v, before the grace", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return with a stuck client")
	}
}

// TestServeUntilLetsReadsFinish: closing ServeUntil's stop (a `serve
// --remote` follower moving to a new manifest) stops the listener but
// lets a request in flight finish with its context alive, within stop's
// grace (not the shutdown's), and ServeUntil then returns nil. Stopping through the requests' own context instead
// failed such a read with "context canceled" (HTTP 499).
func TestServeUntilLetsReadsFinish(t *testing.T) {
	s, err := Listen(Options{Addr: "127.0.0.1:0", ShutdownGrace: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	started, release, cancelled := make(chan struct{}), make(chan struct{}), make(chan struct{})
	s.HandleAPI("GET /api/slow", func(w http.ResponseWriter, r *http.Request) {
		close(started)
		select {
		case <-release:
			io.WriteString(w, "finished")
		case <-r.Context().Done():
			close(cancelled)
			WriteError(w, 499, r.Context().Err())
		}
	})
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- s.ServeUntil(context.Background(), stop, 2*time.Minute) }()
	type answer struct {
		code int
		body string
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		resp, err := http.Get("http://" + s.Addr() + "/api/slow")
		if err != nil {
			got <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- answer{resp.StatusCode, string(b), err}
	}()
	<-started
	close(stop)
	// The shutdown has begun once the listener refuses new connections.
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the listener still accepts a minute after stop was closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Well past the shutdown's grace (1 ms), the read still runs: stop's
	// grace (2 min) is the one that applies.
	select {
	case <-cancelled:
		t.Fatal("the read in flight was cancelled at stop or after the shutdown's grace")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	select {
	case a := <-got:
		if a.err != nil || a.code != http.StatusOK || a.body != "finished" {
			t.Fatalf("the read in flight at stop: %d %q %v, want 200 \"finished\"", a.code, a.body, a.err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the read in flight did not finish")
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeUntil: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("ServeUntil did not return after its read finished")
	}
}

// TestKeptListenerOutlivesServe: a server on Options.Listener leaves it
// open when it stops, so a request made then waits in the backlog and the
// next server on the same listener answers it (a follower's refresh:
// rebinding the port failed "address already in use" when another socket
// had taken it meanwhile).
func TestKeptListenerOutlivesServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	serve := func() (stop func()) {
		s, err := Listen(Options{Listener: ln})
		if err != nil {
			t.Fatal(err)
		}
		ch, done := make(chan struct{}), make(chan error, 1)
		go func() { done <- s.ServeUntil(context.Background(), ch, 0) }()
		return func() {
			close(ch)
			if err := <-done; err != nil {
				t.Fatalf("ServeUntil: %v", err)
			}
		}
	}
	serve()() // served, then stopped: the listener stays open
	got := make(chan error, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("HTTP %d", resp.StatusCode)
			}
		}
		got <- err
	}()
	stop := serve()
	defer stop()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("a request made while no server ran on the kept listener: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the request made between the servers was not answered")
	}
}
