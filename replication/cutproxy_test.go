package replication

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// cutProxy forwards TCP connections to PostgreSQL and, the first time a
// client sends trigger (e.g. the text of one query), closes that
// connection instead of forwarding it: a connection that breaks at an
// exact step of a protocol exchange. Later connections are forwarded
// untouched. Cleanup closes everything and waits for its goroutines.
type cutProxy struct {
	ln      net.Listener
	target  string
	trigger []byte
	cut     atomic.Bool // trigger seen once

	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

// newCutProxy starts a proxy to the server of connURL and returns it with
// connURL pointing at the proxy.
func newCutProxy(t *testing.T, connURL, trigger string) (*cutProxy, string) {
	t.Helper()
	u, err := url.Parse(connURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: u.Host, trigger: []byte(trigger)}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	u.Host = ln.Addr().String()
	return p, u.String()
}

func (p *cutProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.DialTimeout("tcp", p.target, 10*time.Second)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		p.wg.Add(2)
		go func() { defer p.wg.Done(); p.clientToServer(c, s) }()
		go func() { defer p.wg.Done(); io.Copy(c, s); c.Close(); s.Close() }()
	}
}

// clientToServer forwards until the trigger shows up (across reads too),
// then closes both ends without forwarding the read that completed it.
func (p *cutProxy) clientToServer(c, s net.Conn) {
	defer c.Close()
	defer s.Close()
	var tail []byte // the last len(trigger)-1 bytes forwarded
	buf := make([]byte, 32<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if !p.cut.Load() {
				seen := append(tail, buf[:n]...)
				if bytes.Contains(seen, p.trigger) && p.cut.CompareAndSwap(false, true) {
					return
				}
				tail = append(tail[:0], seen[max(0, len(seen)-len(p.trigger)+1):]...)
			}
			if _, err := s.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *cutProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// TestSessionEndsWhenShowBreaks: a connection that breaks during the
// session's SHOW wal_sender_timeout ends the session with that error; it
// used to be ignored, and START_REPLICATION was written to a connection
// pgx was closing in the background (a data race CI's -race pass caught
// when a daemon shut down at that step). The stream then reconnects and
// delivers.
func TestSessionEndsWhenShowBreaks(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []string{"public.a"}, "CREATE TABLE a (id int PRIMARY KEY)")
	proxy, viaProxy := newCutProxy(t, h.url, "SHOW wal_sender_timeout")
	h.start(func(c *StreamConfig) { c.ConnString = viaProxy })
	defer h.stop()
	mustExec(t, h.conn, "INSERT INTO a VALUES (1)")
	h.sync()
	if !proxy.cut.Load() {
		t.Fatal("the proxy never saw SHOW wal_sender_timeout")
	}
	errs := h.errorsSeen()
	if len(errs) == 0 {
		t.Fatal("the broken session reported no error")
	}
	if !strings.Contains(errs[0].Error(), "show wal_sender_timeout") || errors.As(errs[0], new(fatalError)) {
		t.Fatalf("first session error %q, want the failed SHOW wal_sender_timeout (retried, not fatal)", errs[0])
	}
	if got := h.sink.rows("public.a"); len(got) != 1 {
		t.Fatalf("after the reconnect the sink has %q, want one row", got)
	}
}
