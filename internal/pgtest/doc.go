// Package pgtest starts throwaway PostgreSQL clusters for tests, benchmarks
// and `sidecar demo`.
//
// A cluster is initdb'ed into a fresh temporary directory, listens on a free
// port on 127.0.0.1 only (trust authentication, superuser "postgres"), runs
// with wal_level=logical and enough replication slots and WAL senders for
// replication tests, and trades durability for speed (fsync=off). When the
// process runs as root the server runs as the "postgres" OS user, because
// PostgreSQL refuses to run as root.
//
// A cluster never outlives the process that started it: Stop shuts it down
// and removes its directory, and the server is started with a parent-death
// signal, so even a test binary killed by SIGKILL or a test timeout takes
// its server with it. Directories left behind by such deaths are swept by
// the next Start.
//
// When no PostgreSQL server binaries can be found, Start fails with a message
// saying how to install them; tests never skip silently.
//
// The usual pattern is one cluster per test package and one database per
// test:
//
//	var pg *pgtest.Cluster
//
//	func TestMain(m *testing.M) {
//		os.Exit(pgtest.RunMain(m, pgtest.Options{}, func(c *pgtest.Cluster) { pg = c }))
//	}
//
//	func TestSomething(t *testing.T) {
//		url := pg.NewDB(t) // fresh database, dropped when the test ends
//		conn, err := pgx.Connect(t.Context(), url)
//		...
//	}
//
// This package does not import "testing", so that the demo can link it into
// the real binary; test helpers take the small TB interface, which
// testing.TB satisfies.
package pgtest
