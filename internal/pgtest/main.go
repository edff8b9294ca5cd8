package pgtest

import (
	"context"
	"fmt"
	"os"
)

// RunMain is the body of a package's TestMain: it starts a cluster with
// opts, hands it to set (which typically stores it in a package variable),
// runs the tests and stops the cluster, also when the tests fail or m.Run
// panics. It returns the exit code for os.Exit; when the cluster cannot be
// started it prints why (e.g. how to install PostgreSQL) and returns 1, so a
// missing PostgreSQL fails the package instead of skipping it.
//
// A test that panics in its own goroutine, or a test binary killed by the
// -timeout alarm, exits without unwinding RunMain; the server still dies
// with the process (parent-death signal) and its directory is swept by the
// next Start.
//
// A fuzzing worker (the process `go test -fuzz` starts to run inputs)
// gets no cluster: fuzz targets do not use one, and a cluster per worker
// spent a short -fuzztime starting servers instead of fuzzing.
func RunMain(m interface{ Run() int }, opts Options, set func(*Cluster)) (code int) {
	if fuzzWorker(os.Args) {
		return m.Run()
	}
	c, err := Start(context.Background(), opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	defer func() {
		if err := c.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "%v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}()
	// Say which server the package runs against: with $SIDECAR_PG_BIN one
	// test tree runs on several majors, and a failure must name its version.
	fmt.Fprintf(os.Stderr, "pgtest: PostgreSQL %s (%s)\n", c.ServerVersionString(), c.BinDir())
	set(c)
	return m.Run()
}

// fuzzWorker reports whether args are those of a fuzzing worker.
func fuzzWorker(args []string) bool {
	for _, a := range args {
		if a == "-test.fuzzworker" || a == "-test.fuzzworker=true" {
			return true
		}
	}
	return false
}
