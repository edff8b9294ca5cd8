package heap

import (
	"flag"
	"os"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/internal/seed"
)

var pg *pgtest.Cluster

// TestMain starts one PostgreSQL cluster for the package, except in a
// fuzzing worker process (go test -fuzz runs the test binary again per
// worker): the fuzz target needs none, and a cluster per worker would
// stall the fuzzer.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
		os.Exit(m.Run())
	}
	os.Exit(pgtest.RunMain(m, pgtest.Options{}, func(c *pgtest.Cluster) { pg = c }))
}

// seedFlag replays a failing random test: go test ./heap -run X -seed N.
var seedFlag = seed.Flag()
