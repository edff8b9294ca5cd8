package history

import (
	"context"
	"flag"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/internal/seed"
)

// seedFlag replays a failing random test: go test ./history -run X -seed N.
var seedFlag = seed.Flag()

// pg is a throwaway cluster the SQL patches are applied to.
var pg *pgtest.Cluster

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(pgtest.RunMain(m, pgtest.Options{}, func(c *pgtest.Cluster) { pg = c }))
}

// connect opens a connection to url, closed when the test ends.
func connect(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// mustExec runs each statement on conn and fails the test on an error.
func mustExec(t testing.TB, conn *pgx.Conn, sqls ...string) {
	t.Helper()
	for _, s := range sqls {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}
