package follow

import (
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// retryableResync reports whether an online resync failed for a reason a
// later attempt can get past: PostgreSQL restarting or shutting down
// (SQLSTATE class 57: a fast shutdown terminates every backend, the
// resync's copy connections and temporary slot included), a connection
// error (class 08, a refused, broken or closed connection, an unexpected
// EOF).
// The table stays resync_needed with its changes held, and the follow
// loop tries again; streaming goes on meanwhile. Found by the torture
// suite: a PostgreSQL restart during a resync stopped the daemon.
func retryableResync(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "57") || strings.HasPrefix(pgErr.Code, "08")
	}
	var connErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connErr) || errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "conn closed") || // pgconn's closed-connection error has no type of its own
		strings.Contains(err.Error(), "the database system is shutting down") || strings.Contains(err.Error(), "the database system is starting up")
}

// resyncBackoff is the wait before attempt n+1 of a failed resync (1 s,
// doubling, at most 30 s).
func resyncBackoff(n int) time.Duration {
	return min(time.Second<<min(n, 5), 30*time.Second)
}
