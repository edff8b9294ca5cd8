package query

import "github.com/sidecar-dev/sidecar/internal/pgtest"

// Cluster is the test cluster, for the external test package's benchmark.
func Cluster() *pgtest.Cluster { return pg }
