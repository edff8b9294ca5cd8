package types_test

import (
	"os"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/types"
)

var pg *pgtest.Cluster

var seedFlag = seed.Flag()

func TestMain(m *testing.M) {
	os.Exit(pgtest.RunMain(m, pgtest.Options{}, func(c *pgtest.Cluster) { pg = c }))
}

// dialect is the catalog's behaviour for the server the tests run on.
func dialect() types.Dialect { return types.Dialect{Version: pg.ServerVersion()} }
