package sqlfront_test

import (
	"io"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// daemonSQL starts a daemon following tables of the database at url, its
// data directory dir, with its SQL port on a free local address, stopped
// when the test ends; it returns the SQL port's URL. The daemon's log
// goes to log (io.Discard: none). The caller waits for the answers it
// needs (waitServed, or its own probes).
func daemonSQL(t *testing.T, url string, tables []string, dir string, log io.Writer) (sqlURL string) {
	t.Helper()
	sqlAddr := daemontest.FreeAddr(t)
	_, stop := startDaemon(t, url, tables, dir, sqlAddr, log)
	t.Cleanup(stop)
	return "postgres://app@" + sqlAddr + "/app?sslmode=disable"
}

// psqlAtSame is a check that each statement prints the same through psql
// -At on the SQL port at sqlURL as on PostgreSQL at pgURL (an error on
// PostgreSQL fails the test at once; psqlSame, pgcatalog_database_test.go, compares errors too).
func psqlAtSame(t *testing.T, pgURL, sqlURL string) func(stmts ...string) {
	return func(stmts ...string) {
		t.Helper()
		psqlCheck{sqlURL: sqlURL, pgURL: pgURL}.withArgs("-At").same(t, stmts...)
	}
}
