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
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Probe answers the readiness question: ok, or why not.
type Probe func(ctx context.Context) (ready bool, reason string)

// Options configure a Server.
type Options struct {
	// Addr is host:port to listen on.
	Addr string
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
}

// Server is a bound, not yet serving, HTTP server.
type Server struct {
	opts Options
	ln   net.Listener
	mux  *http.ServeMux
	log  *slog.Logger
}

// Listen binds the address now, so that a port clash fails at start, before
// the daemon announces readiness.
func Listen(opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", opts.Addr, err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, ln: ln, mux: http.NewServeMux(), log: log}
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, http.StatusOK, map[string]string{"status": "alive"})
	})
	s.mux.HandleFunc("GET /readyz", s.readyz)
	s.mux.Handle("/api/", s.auth(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, http.StatusNotFound, fmt.Errorf("no API endpoint %s %s", r.Method, r.URL.Path))
	})))
	if opts.Gatherer != nil {
		s.mux.Handle("GET /metrics", promhttp.HandlerFor(opts.Gatherer, promhttp.HandlerOpts{}))
	}
	return s, nil
}

// Addr is the bound address (useful with port 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// HandleAPI registers an API handler under /api/; pattern is a ServeMux
// pattern such as "GET /api/status". The token check is applied.
func (s *Server) HandleAPI(pattern string, h http.HandlerFunc) {
	s.mux.Handle(pattern, s.auth(h))
}

// Serve serves until ctx ends, then shuts down gracefully: requests in
// flight (their context ends with ctx) get Options.ShutdownGrace to
// finish, then their connections are closed. A stuck client is not an
// error of the daemon's shutdown.
func (s *Server) Serve(ctx context.Context) error {
	srv := &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(s.ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("http server on %s: %w", s.Addr(), err)
	case <-ctx.Done():
	}
	grace := s.opts.ShutdownGrace
	if grace <= 0 {
		grace = 5 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		s.log.Warn("requests still running at shutdown; closing their connections", "grace", grace)
		err = srv.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
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

// WriteError writes {"error": message} with status.
func WriteError(w http.ResponseWriter, status int, err error) {
	WriteJSON(w, status, map[string]string{"error": strings.TrimSpace(err.Error())})
}
