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
func RunMain(m interface{ Run() int }, opts Options, set func(*Cluster)) (code int) {
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
	set(c)
	return m.Run()
}
