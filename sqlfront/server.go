// Package sqlfront serves the mirror over PostgreSQL's wire protocol:
// psql, drivers, BI tools and pgbench connect, read-only, at any version.
//
// It owns the protocol (pgproto3: startup, TLS, SCRAM-SHA-256, cancel,
// simple and extended query protocol, text and binary formats), the SQL
// front end (PostgreSQL's own parser through pg_query_go, cgo: only this
// package imports it), a plan cache keyed by statement text, and a
// row-at-a-time evaluator with PostgreSQL's semantics (three-valued
// logic, exact numeric, integer overflow errors; text compares bytewise,
// as under the "C" collation). Plans read a Source: today the Prolly
// trees through history/, later the query engine of issue 14.
//
// Everything outside the supported subset is refused with 0A000 naming
// the construct; writes and DDL get 25006 like a hot standby. Nothing is
// proxied to PostgreSQL.
package sqlfront

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/prometheus/client_golang/prometheus"
)

// Options configure a Server.
type Options struct {
	Addr string // host:port; port 0 picks one
	// TLS, when set, is offered to clients that send SSLRequest.
	TLS *tls.Config
	// Users are the accepted users and their SCRAM verifiers (LoadUsers);
	// nil accepts any user without a password (only allowed on a
	// loopback address).
	Users map[string]*scramSecret
	// MaxConnections caps concurrent sessions (0: 100).
	MaxConnections int
	// StatementTimeout cancels a statement running longer (0: none).
	StatementTimeout time.Duration
	Source           Source
	Logger           *slog.Logger
	// ServerVersion is the followed server's server_version as it
	// reports it (the daemon passes what preflight read): advertised as
	// server_version, and its number as server_version_num, since
	// clients choose their catalog queries by it. Empty, or of another
	// version than the followed tables' catalog facts record (the
	// server was upgraded since), the facts' version is advertised
	// (advertisedVersion).
	ServerVersion string
	// MaxMessageSize bounds a Query, Parse or Bind message in bytes
	// (sql.max_message_size; 0: DefaultMaxMessageSize). A message
	// claiming more is answered 08P01 and the connection closed; other
	// messages are bounded at 10,000 bytes as in PostgreSQL.
	MaxMessageSize int
	// Metrics, when set, registers the sidecar_sql_* metrics
	// (connections, statements by outcome and SQLSTATE class, latency,
	// rows, where SELECTs ran).
	Metrics prometheus.Registerer
	// QueryMemory, when set, is the working memory every running
	// statement draws its hash tables, sorts and groups from
	// (memory.query): past it a statement fails with 53200. Nil: unbounded.
	QueryMemory *QueryPool
	// TempDir, when set, is where a sort on sql/exec past its working
	// memory writes sorted runs (removed when the statement ends); unset,
	// such a sort fails with 53200.
	TempDir string
	// TempFileLimit caps the bytes of one statement's temporary files
	// (0: no cap): past it the statement fails with 53400, as
	// PostgreSQL's temp_file_limit.
	TempFileLimit int64
	// ZoneOffsets asks the followed server for a zone's offsets, to
	// prove the sidecar's tz data agrees before a session uses the zone
	// (timezone_verify.go); nil: zones of the tz database are refused.
	ZoneOffsets ZoneOffsetsFunc
	// SessionDefaults, when set, gives the followed server's TimeZone,
	// DateStyle and IntervalStyle, a new session's defaults
	// (serverdefaults.go); nil: UTC, ISO, postgres.
	SessionDefaults func() SessionDefaults
}

// Server is a listening SQL front end.
type Server struct {
	opts  Options
	ln    net.Listener
	src   Source
	log   *slog.Logger
	cache planCache
	// engineRuns counts the selects the query engine answered (tests
	// check that planning hands them over).
	engineRuns atomic.Int64
	// directRuns counts the selects sent from stored rows (direct.go).
	directRuns atomic.Int64
	// keyOrderRows counts the rows read in primary-key order by ORDER BY
	// key … LIMIT (vexec_ordered.go, rows.go).
	keyOrderRows atomic.Int64
	// selectRuns counts every select run (the evaluator ran those that
	// neither the engine nor the direct path did).
	selectRuns atomic.Int64
	met        *frontMetrics
	zones      zoneVerdicts  // timezone_verify.go
	funcs      funcLibraries // vexec_funcreg.go

	mu       sync.Mutex
	sessions map[uint64]*session   // by cancel key (pid<<32 | secret)
	conns    map[net.Conn]struct{} // every open connection, closed at shutdown
	nextPID  uint32
	wg       sync.WaitGroup
}

// Listen binds the address; Serve accepts connections.
func Listen(opts Options) (*Server, error) {
	if opts.Source == nil {
		return nil, errors.New("sqlfront: no source")
	}
	if opts.Users == nil {
		host, _, err := net.SplitHostPort(opts.Addr)
		if err != nil {
			return nil, fmt.Errorf("sql.listen %q: %w", opts.Addr, err)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, fmt.Errorf("sql.listen %s is not a loopback address: set sql.users_file so that clients must authenticate", opts.Addr)
		}
	}
	if opts.MaxConnections <= 0 {
		opts.MaxConnections = 100
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("sql.listen: %w", err)
	}
	s := &Server{opts: opts, ln: ln, src: opts.Source, log: opts.Logger,
		sessions: map[uint64]*session{}, conns: map[net.Conn]struct{}{}, nextPID: 1}
	s.met = newFrontMetrics(s)
	return s, nil
}

// Addr is the bound address.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Serve accepts connections until ctx ends, then closes the listener and
// every connection and waits for their goroutines.
func (s *Server) Serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		s.ln.Close()
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
	}()
	defer func() {
		cancel()
		<-stopped
		s.wg.Wait()
	}()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return fmt.Errorf("sql listener: %w", err)
		}
		s.mu.Lock()
		if ctx.Err() != nil {
			s.mu.Unlock()
			c.Close()
			return nil
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.met.accepted.Inc()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
			}()
			s.handle(ctx, c)
		}()
	}
}

// register adds a session under a fresh cancel key, or refuses it past
// the connection limit.
func (s *Server) register(ss *session) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sessions) >= s.opts.MaxConnections {
		return false
	}
	var b [4]byte
	rand.Read(b[:])
	ss.pid, ss.secret = s.nextPID, binary.BigEndian.Uint32(b[:])
	s.nextPID++
	s.sessions[uint64(ss.pid)<<32|uint64(ss.secret)] = ss
	return true
}

func (s *Server) unregister(ss *session) {
	s.mu.Lock()
	delete(s.sessions, uint64(ss.pid)<<32|uint64(ss.secret))
	s.mu.Unlock()
}

// cancel cancels the running statement of the session with the key.
func (s *Server) cancel(pid, secret uint32) {
	s.mu.Lock()
	ss := s.sessions[uint64(pid)<<32|uint64(secret)]
	s.mu.Unlock()
	if ss != nil {
		ss.cancelRunning(true)
	}
}

// handle runs one connection: startup, authentication, then the session.
func (s *Server) handle(ctx context.Context, c net.Conn) {
	defer c.Close()
	var conn net.Conn = c
	wr := newWireReader(conn, s.opts.MaxMessageSize)
	be := pgproto3.NewBackend(noReader{}, conn)
	fatal := func(e *Error) {
		r := e.response("")
		r.Severity, r.SeverityUnlocalized = "FATAL", "FATAL"
		be.Send(r)
		be.Flush()
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	var startup *pgproto3.StartupMessage
	for startup == nil {
		msg, err := wr.startup()
		if err != nil {
			var fe *fatalError
			if errors.As(err, &fe) {
				s.log.Info("sql: refused a connection", "remote", c.RemoteAddr(), "err", fe.e.Msg)
				s.met.refused.WithLabelValues("protocol").Inc()
				fatal(fe.e)
			}
			return
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest:
			if s.opts.TLS == nil {
				if _, err := conn.Write([]byte{'N'}); err != nil {
					return
				}
				continue
			}
			if wr.br.Buffered() > 0 {
				// As PostgreSQL (CVE-2021-23214): bytes sent before
				// the handshake must not be read as if encrypted.
				fatal(errf(codeProtocol, -1, "received unencrypted data after SSL request"))
				return
			}
			if _, err := conn.Write([]byte{'S'}); err != nil {
				return
			}
			tc := tls.Server(c, s.opts.TLS)
			if err := tc.Handshake(); err != nil {
				s.log.Debug("sql: TLS handshake failed", "remote", c.RemoteAddr(), "err", err)
				return
			}
			conn = tc
			wr = newWireReader(conn, s.opts.MaxMessageSize)
			be = pgproto3.NewBackend(noReader{}, conn)
		case *pgproto3.GSSEncRequest:
			if _, err := conn.Write([]byte{'N'}); err != nil {
				return
			}
		case *pgproto3.CancelRequest:
			if len(m.SecretKey) == 4 {
				s.cancel(m.ProcessID, binary.BigEndian.Uint32(m.SecretKey))
			}
			return
		case *pgproto3.StartupMessage:
			startup = m
		}
	}
	_, isTLS := conn.(*tls.Conn)
	ss := newSession(s, conn, be, wr, startup.Parameters, isTLS)
	if s.opts.Users != nil {
		secret := s.opts.Users[ss.user]
		if err := scramAuth(be, wr, secret); err != nil || secret == nil {
			var fe *fatalError
			if errors.As(err, &fe) {
				fatal(fe.e)
				return
			}
			s.log.Info("sql: authentication failed", "user", ss.user, "remote", c.RemoteAddr())
			s.met.refused.WithLabelValues("auth").Inc()
			fatal(errf(codeAuthFailed, -1, "password authentication failed for user \"%s\"", ss.user))
			return
		}
	}
	c.SetDeadline(time.Time{})
	s.run(ctx, ss, fatal)
}

// run runs an authenticated session to its end: registered under the
// connection limit, started (startup options applied), then its loop.
// fatal sends a FATAL error to the client.
func (s *Server) run(ctx context.Context, ss *session, fatal func(*Error)) {
	if !s.register(ss) {
		s.met.refused.WithLabelValues("too_many").Inc()
		fatal(errf(codeTooMany, -1, "sorry, too many clients already (sql.max_connections is %d)", s.opts.MaxConnections))
		return
	}
	defer s.unregister(ss)
	s.met.connections.Inc()
	defer s.met.connections.Dec()
	defer func() {
		// A bug reached by one client's input ends that client's
		// connection (XX000, logged with its stack), not the daemon.
		if r := recover(); r != nil {
			s.log.Error("sql: internal error; closing the connection", "remote", ss.conn.RemoteAddr(), "panic", r, "stack", string(debug.Stack()))
			fatal(errf(codeInternal, -1, "internal error: %v", r))
		}
	}()
	if err := ss.start(ctx); err != nil {
		fatal(toError(err))
		return
	}
	defer ss.closeCursors() // their rows' memory.query share
	defer ss.closePortals() // portalmem.go: likewise
	ss.loop(ctx)
}

// noReader is the read side given to pgproto3's Backend, which only
// sends: every message is read by a wireReader.
type noReader struct{}

func (noReader) Read([]byte) (int, error) {
	return 0, errors.New("sqlfront: messages are read by the wire reader")
}

// EngineRuns is the number of statements the query engine (query/) has
// answered, as opposed to sidecar's row-at-a-time evaluator.
func (s *Server) EngineRuns() int64 { return s.engineRuns.Load() }

// DirectRuns is the number of statements whose rows were sent as stored,
// without conversion (primary-key gets and ranges, whole-table reads).
func (s *Server) DirectRuns() int64 { return s.directRuns.Load() }

// KeyOrderRows is the number of rows read from storage in primary-key
// order for an ORDER BY on the key under a LIMIT (tests check that the
// LIMIT bounds them).
func (s *Server) KeyOrderRows() int64 { return s.keyOrderRows.Load() }
