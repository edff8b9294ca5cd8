package sqlfront

import (
	"context"
	"net"

	"github.com/jackc/pgx/v5/pgproto3"
)

// Local opens a session of this server over an in-process pipe, for a
// reader inside the daemon that has already authenticated its caller:
// the web console's SQL box, behind the API's bearer token. The session
// is the SQL port's own (same planner, same read-only refusals, same
// statement_timeout, working memory and connection limit, counted in
// the same metrics); only the startup packet, TLS and the password
// exchange are skipped. params are the startup parameters: "user",
// "database", "sidecar.as_of" (the version read), "options" (-c
// statement_timeout=…).
//
// The server first sends what a session sends after authentication
// (ParameterStatus…, ReadyForQuery, or a FATAL ErrorResponse when a
// parameter is refused, e.g. an unknown sidecar.as_of), then answers the
// frontend messages written to conn. The caller owns conn and must Close
// it; the session then ends (a running statement is cancelled as for a
// client that hangs up) and wait returns once its goroutine has.
func (s *Server) Local(ctx context.Context, params map[string]string) (conn net.Conn, wait func()) {
	client, end := net.Pipe()
	done := make(chan struct{})
	go func() { // owned by the caller: it ends when the caller closes conn, and wait waits for it
		defer close(done)
		defer end.Close()
		wr := newWireReader(end, s.opts.MaxMessageSize)
		be := pgproto3.NewBackend(noReader{}, end)
		fatal := func(e *Error) {
			r := e.response("")
			r.Severity, r.SeverityUnlocalized = "FATAL", "FATAL"
			be.Send(r)
			be.Flush()
		}
		s.run(ctx, newSession(s, end, be, wr, params, false), fatal)
	}()
	return client, func() { <-done }
}
