// Command sidecar-bench reproduces the benchmark reports of bench/results/
// on this machine: it starts throwaway PostgreSQL clusters
// (internal/pgtest), loads them, follows them with a sidecar run in
// process and measures both. It is a separate binary so that the product
// binary (cmd/sidecar) carries neither the harness nor the test cluster
// launcher (issue 26 item 2).
//
//	go run ./cmd/sidecar-bench <subject> [flags]
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// globals are the writers every subcommand prints to.
type globals struct {
	stdout, stderr io.Writer
}

// run executes one command line and returns the process exit status: 0
// the report was written, 2 bad flags or a failed run.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newBenchCmd(&globals{stdout: stdout, stderr: stderr})
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SilenceUsage, root.SilenceErrors = true, true
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "Error: %v\n", err)
	var ue *usageErr
	if errors.As(err, &ue) && ue.hint != "" {
		fmt.Fprintf(stderr, "Try: %s\n", ue.hint)
	}
	return 2
}

// usageErr is an error with a hint at the command line that would work.
type usageErr struct {
	err  error
	hint string
}

func (e *usageErr) Error() string { return e.err.Error() }
func (e *usageErr) Unwrap() error { return e.err }

// usageError wraps err with a hint ("" for none).
func usageError(err error, hint string) error { return &usageErr{err: err, hint: hint} }
