// Package testkit groups the test rigs apart from internal/'s production
// leaf packages: the packages below it are imported by tests only (and by
// each other), and may import any package of the module, while
// internal/'s own packages (corrupt, invariants, pgident, editdist, ...)
// are leaves the product uses.
//
//   - daemontest: a daemon on a throwaway cluster (start, markers, waits,
//     stop, kill -9 of a child process)
//   - mirrortest: a data directory's mirror opened and read back
//   - dirstate: a directory's files, to check that a read wrote nothing
//   - powercut: a store syncer that keeps the last synced image
//   - costratio: work growing as expected with its input
//
// Still directly under internal/: pgtest (the cluster launcher, which
// `sidecar demo` uses too), seed and s3test.
package testkit
