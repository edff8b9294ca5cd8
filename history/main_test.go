package history

import (
	"flag"
	"os"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
)

// seedFlag replays a failing random test: go test ./history -run X -seed N.
var seedFlag = flag.Uint64("seed", 0, "seed for the random model tests (0: from the clock)")

// pg is a throwaway cluster the SQL patches are applied to.
var pg *pgtest.Cluster

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(pgtest.RunMain(m, pgtest.Options{}, func(c *pgtest.Cluster) { pg = c }))
}
