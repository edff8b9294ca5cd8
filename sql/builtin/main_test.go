package builtin_test

import (
	"os"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
)

var pg *pgtest.Cluster

func TestMain(m *testing.M) {
	os.Exit(pgtest.RunMain(m, pgtest.Options{}, func(c *pgtest.Cluster) { pg = c }))
}
