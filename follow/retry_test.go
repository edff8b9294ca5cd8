package follow

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestRetryableResync: the errors a PostgreSQL restart or a cut gives a
// resync are retried; a configuration or data problem is not.
func TestRetryableResync(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("create slot: %w", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}), true},
		{fmt.Errorf("connect: %w", &pgconn.PgError{Code: "57P03", Message: "the database system is shutting down"}), true},
		{fmt.Errorf("copy: %w", &pgconn.PgError{Code: "08006"}), true},
		{fmt.Errorf("copy worker: end snapshot transaction: %w", errors.New("conn closed")), true},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("copy: %w", &pgconn.PgError{Code: "42P01", Message: "relation does not exist"}), false},
		{fmt.Errorf("copy: %w", &pgconn.PgError{Code: "42501", Message: "permission denied"}), false},
		{errors.New("table copied with another schema"), false},
	} {
		if got := retryableResync(c.err); got != c.want {
			t.Errorf("retryableResync(%v) = %v, want %v", c.err, got, c.want)
		}
	}
	if resyncBackoff(0) != 1e9 || resyncBackoff(10) != 30e9 {
		t.Errorf("backoff %v %v", resyncBackoff(0), resyncBackoff(10))
	}
}
