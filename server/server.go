// Package server is the daemon's HTTP listener: /healthz, /readyz,
// /metrics, and the JSON API under /api/ that the CLI uses when a daemon
// runs. Request errors are JSON objects {"error": "..."} with the matching
// status code. When a token is configured, /api/ requires it as a bearer
// token; health and metrics stay open for probes and scrapers.
package server

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sidecar-dev/sidecar/console"
)

// Probe answers the readiness question: ok, or why not.
type Probe func(ctx context.Context) (ready bool, reason string)

// Options configure a Server.
type Options struct {
	// Addr is host:port to listen on.
	Addr string
	// Listener, when set, is served instead of a listener on Addr, and
	// the server's shutdown does not close it: its owner does. A `serve
	// --remote` follower keeps one listener across its refreshes, so its
	// port is never free for another socket to take meanwhile (a rebind
	// failed "address already in use" at load 48) and a connection made
	// during a refresh waits in the backlog instead of being refused.
	Listener net.Listener
	// Token, when set, is required as "Authorization: Bearer <token>" on /api/.
	Token  string
	Logger *slog.Logger
	// Gatherer serves /metrics; nil serves no metrics.
	Gatherer prometheus.Gatherer
	// Ready answers /readyz; nil is always ready.
	Ready Probe
	// ShutdownGrace bounds how long Serve waits, once its context ends,
	// for requests in flight (default 5 s). Requests see their context
	// end at once; a response blocked on a client that does not read is
	// cut when the grace is over.
	ShutdownGrace time.Duration
	// ReadTimeout bounds reading one request, headers and body (default
	// 30 s): a client that sends its body slowly or not at all is cut.
	ReadTimeout time.Duration
	// WriteTimeout bounds how long one write of an answer may wait on a
	// client that does not read (default 60 s). For /healthz, /readyz and
	// /metrics it bounds the whole answer (http.Server.WriteTimeout); an
	// /api/ answer may take as long as it needs to compute and stream
	// (diff, scan, merge, verify, gc), each write getting its own deadline.
	WriteTimeout time.Duration
	// MaxBodyBytes caps an /api/ request body (default 1 MiB); a larger
	// one is answered 413 without being read further.
	MaxBodyBytes int64
}

// Defaults of Options.
const (
	DefaultReadTimeout  = 30 * time.Second
	DefaultWriteTimeout = 60 * time.Second
	DefaultMaxBodyBytes = 1 << 20
)

// Server is a bound, not yet serving, HTTP server.
type Server struct {
	opts Options
	ln   net.Listener
	mux  *http.ServeMux
	log  *slog.Logger
	// methods lists, per /api/ path, the methods registered for it, so
	// that a wrong method is answered 405 with Allow, not 404.
	methods map[string][]string
	// running counts the API handlers running (WaitHandlers).
	running atomic.Int64
}

// Listen binds the address now, so that a port clash fails at start, before
// the daemon announces readiness.
func Listen(opts Options) (*Server, error) {
	var ln net.Listener
	if opts.Listener != nil {
		ln = keptListener{opts.Listener}
		if err := ln.(keptListener).setDeadline(time.Time{}); err != nil {
			return nil, fmt.Errorf("listen on %s: %w", opts.Listener.Addr(), err)
		}
	} else {
		var err error
		if ln, err = net.Listen("tcp", opts.Addr); err != nil {
			return nil, fmt.Errorf("listen on %s: %w", opts.Addr, err)
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = DefaultReadTimeout
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	s := &Server{opts: opts, ln: ln, mux: http.NewServeMux(), log: log, methods: map[string][]string{}}
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, http.StatusOK, map[string]string{"status": "alive"})
	})
	s.mux.HandleFunc("GET /readyz", s.readyz)
	s.mux.Handle("/api/", s.auth(http.HandlerFunc(s.noRoute)))
	// Every other path: a JSON 404 too, not the mux's text.
	// The web console (package console): files only, its data comes from
	// /api/ under the token check; / leads to it.
	s.mux.Handle("GET "+console.Prefix, console.Handler())
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, console.Prefix, http.StatusFound)
	})
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, http.StatusNotFound, fmt.Errorf("no endpoint %s %s (the API is under /api/, the web console under /console/; /healthz, /readyz, /metrics)", Quote(r.Method), Quote(r.URL.Path)))
	})
	if opts.Gatherer != nil {
		s.mux.Handle("GET /metrics", promhttp.HandlerFor(opts.Gatherer, promhttp.HandlerOpts{}))
	}
	return s, nil
}

// keptListener is an Options.Listener as the server sees it: its Close
// (http.Server's shutdown) stops the accept loop with a deadline and
// leaves the socket open for its owner; Listen clears the deadline.
type keptListener struct{ net.Listener }

func (l keptListener) setDeadline(t time.Time) error {
	if d, ok := l.Listener.(interface{ SetDeadline(time.Time) error }); ok {
		return d.SetDeadline(t)
	}
	return fmt.Errorf("a kept listener must have SetDeadline (a TCP listener), not %T", l.Listener)
}

func (l keptListener) Close() error { return l.setDeadline(time.Now()) }

// Addr is the bound address (useful with port 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// HandleAPI registers an API handler under /api/; pattern is a ServeMux
// pattern such as "GET /api/status". The token check is applied, the
// request body is capped at Options.MaxBodyBytes (read it with
// DecodeJSON), and every write of the answer gets its own
// Options.WriteTimeout deadline. The same path with another method is
// answered 405.
func (s *Server) HandleAPI(pattern string, h http.HandlerFunc) {
	if method, path, ok := strings.Cut(pattern, " "); ok {
		s.methods[path] = append(s.methods[path], method)
	}
	s.mux.Handle(pattern, s.auth(s.guard(h)))
}

// noRoute answers /api/ requests no pattern took: 405 with Allow when the
// path exists with other methods, else 404.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	if ms := s.methods[r.URL.Path]; len(ms) > 0 {
		allow := append([]string(nil), ms...)
		for _, m := range ms {
			if m == http.MethodGet {
				allow = append(allow, http.MethodHead)
			}
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		WriteError(w, http.StatusMethodNotAllowed, fmt.Errorf("%s takes %s, not %s", r.URL.Path, strings.Join(allow, " or "), Quote(r.Method)))
		return
	}
	WriteError(w, http.StatusNotFound, fmt.Errorf("no API endpoint %s %s", Quote(r.Method), Quote(r.URL.Path)))
}

// guard applies the body cap and the per-write deadlines to h.
func (s *Server) guard(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.running.Add(1)
		defer s.running.Add(-1)
		r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
		dw := &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: s.opts.WriteTimeout}
		// The server's whole-answer deadline does not fit an answer that
		// computes or streams for long; each write sets its own instead.
		_ = dw.rc.SetWriteDeadline(time.Time{})
		h(dw, r)
	}
}

// deadlineWriter gives the writes of one answer a deadline of timeout
// from the write: a client that stops reading is cut after timeout,
// however long the answer runs. The deadline is moved at most every
// min(1 s, timeout/4), so it is always at least ¾ of timeout ahead of a
// write that starts, and a stream of small lines does not pay for a
// deadline each.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	set     time.Time // when the deadline was last moved
}

func (d *deadlineWriter) arm() {
	now := time.Now()
	if now.Sub(d.set) < min(time.Second, d.timeout/4) {
		return
	}
	d.set = now
	_ = d.rc.SetWriteDeadline(now.Add(d.timeout))
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.arm()
	return d.ResponseWriter.Write(p)
}

// Flush sends what is buffered, under the same deadline.
func (d *deadlineWriter) Flush() {
	d.arm()
	_ = d.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// RequestError is a client's mistake in a request: answered with Status
// (400, or 413 for a body over the cap).
type RequestError struct {
	Status int
	Err    error
}

func (e *RequestError) Error() string { return e.Err.Error() }
func (e *RequestError) Unwrap() error { return e.Err }

// StatusOf is the status of a *RequestError in err's chain, else fallback.
func StatusOf(err error, fallback int) int {
	var re *RequestError
	if errors.As(err, &re) {
		return re.Status
	}
	return fallback
}

// DecodeJSON reads the request body as exactly one JSON value into v:
// unknown fields, trailing data, an empty body and a body over the cap
// are *RequestError (413 for the cap, else 400). Errors never quote the
// body beyond a short prefix of a field name.
func DecodeJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		// One value, nothing after it but white space.
		if _, terr := dec.Token(); terr == nil {
			err = errors.New("more than one JSON value")
		} else if terr != io.EOF {
			err = terr
		}
	}
	if err == nil {
		return nil
	}
	var tooBig *http.MaxBytesError
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &tooBig):
		return &RequestError{Status: http.StatusRequestEntityTooLarge, Err: fmt.Errorf("request body is larger than %d bytes", tooBig.Limit)}
	case errors.Is(err, io.EOF):
		return &RequestError{Status: http.StatusBadRequest, Err: errors.New("request body is empty: send a JSON object")}
	case errors.As(err, &syn):
		return &RequestError{Status: http.StatusBadRequest, Err: fmt.Errorf("request body is not valid JSON at byte %d", syn.Offset)}
	case errors.As(err, &typ):
		return &RequestError{Status: http.StatusBadRequest, Err: fmt.Errorf("request body: field %s: a JSON %s cannot go into %s", Quote(typ.Field), typ.Value, typ.Type)}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.TrimPrefix(err.Error(), "json: unknown field ")
		if u, uerr := strconv.Unquote(name); uerr == nil {
			name = u
		}
		return &RequestError{Status: http.StatusBadRequest, Err: fmt.Errorf("request body: unknown field %s", Quote(name))}
	}
	return &RequestError{Status: http.StatusBadRequest, Err: fmt.Errorf("request body: %s", Quote(err.Error()))}
}

// maxQuote is how much of a client's input an error message may quote.
const maxQuote = 64

// Quote is s quoted for an error message, cut to its first 64 bytes with
// its length said: an error never echoes a large input back.
func Quote(s string) string {
	if len(s) <= maxQuote {
		return strconv.Quote(s)
	}
	cut := maxQuote
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// Serve serves until ctx ends, then shuts down gracefully: requests in
// flight (their context ends with ctx) get Options.ShutdownGrace to
// finish, then their connections are closed. A stuck client is not an
// error of the daemon's shutdown.
func (s *Server) Serve(ctx context.Context) error { return s.ServeUntil(ctx, nil, 0) }

// ServeUntil is Serve that also shuts down when stop is closed, without
// ending the requests in flight: their context is a child of ctx, not of
// stop, so they have stopGrace (ShutdownGrace when <= 0) to finish before
// it is cancelled and their connections closed. A `serve --remote`
// follower stops its API so to move to a new manifest; ending its
// requests' context there failed reads in flight with "context canceled"
// (HTTP 499: TestRemoteFollowerServe's follower diff, 1 run in 30 at
// load 25-36) where its doc promises that they finish.
func (s *Server) ServeUntil(ctx context.Context, stop <-chan struct{}, stopGrace time.Duration) error {
	reqCtx, cancelReqs := context.WithCancel(ctx)
	defer cancelReqs()
	srv := &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return reqCtx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(s.ln) }()
	grace := s.opts.ShutdownGrace
	if grace <= 0 {
		grace = 5 * time.Second
	}
	select {
	case err := <-errc:
		return fmt.Errorf("http server on %s: %w", s.Addr(), err)
	case <-ctx.Done():
	case <-stop:
		// ctx may have ended as well: a shutdown keeps its own grace.
		if stopGrace > 0 && ctx.Err() == nil {
			grace = stopGrace
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		s.log.Warn("requests still running at shutdown; closing their connections", "grace", grace)
		cancelReqs()
		err = srv.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// WaitHandlers waits until no API handler runs, or ctx ends (its error).
// Serve's shutdown closes the connections of handlers still running past
// its grace, but they go on until they return: an owner that frees what
// they read (the daemon's heap page file) waits for them after Serve.
func (s *Server) WaitHandlers(ctx context.Context) error {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for s.running.Load() > 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %d API handlers: %w", s.running.Load(), ctx.Err())
		case <-t.C:
		}
	}
	return nil
}

// Close releases the listener of a server that never served.
func (s *Server) Close() error { return s.ln.Close() }

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.opts.Ready == nil {
		WriteJSON(w, http.StatusOK, map[string]any{"ready": true})
		return
	}
	ok, reason := s.opts.Ready(r.Context())
	status := http.StatusOK
	if !ok {
		status = http.StatusServiceUnavailable
	}
	WriteJSON(w, status, map[string]any{"ready": ok, "reason": reason})
}

func (s *Server) auth(h http.Handler) http.Handler {
	if s.opts.Token == "" {
		return h
	}
	want := []byte("Bearer " + s.opts.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sidecar"`)
			WriteError(w, http.StatusUnauthorized, errors.New("missing or wrong bearer token (api.token)"))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// WriteJSON writes v as the JSON response body with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// maxErrorBytes caps an error message: whatever an error quotes, the
// answer stays small.
const maxErrorBytes = 4 << 10

// WriteError writes {"error": message} with status; a message over 4 KiB
// is cut.
func WriteError(w http.ResponseWriter, status int, err error) {
	msg := strings.TrimSpace(err.Error())
	if len(msg) > maxErrorBytes {
		cut := maxErrorBytes
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = fmt.Sprintf("%s… (%d bytes cut)", msg[:cut], len(msg)-cut)
	}
	WriteJSON(w, status, map[string]string{"error": msg})
}
