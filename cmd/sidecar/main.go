// Command sidecar follows a PostgreSQL server through logical replication and
// keeps a versioned, verifiable, fast-to-read mirror of its tables.
//
// main only wires: each subcommand lives in its own file and calls into the
// packages that do the work.
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

// run executes one command line and returns the process exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", ee.err)
			if ee.hint != "" {
				fmt.Fprintf(stderr, "Try: %s\n", ee.hint)
			}
		}
		return ee.code
	}
	// Cobra's own errors: unknown command or flag, wrong argument count.
	fmt.Fprintf(stderr, "Error: %v\n", err)
	fmt.Fprintf(stderr, "Try: sidecar --help\n")
	return exitUsage
}

// Exit statuses shared by every command (DESIGN.md, "Commands").
const (
	exitOK    = 0
	exitFound = 1 // differences, conflicts, not ready (per command)
	exitUsage = 2 // bad input or could not do the job
)

// exitError carries an exit status and an optional hint up to run.
type exitError struct {
	code int
	err  error
	hint string
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError is bad input: exit status 2.
func usageError(err error, hint string) error {
	return &exitError{code: exitUsage, err: err, hint: hint}
}

// silentExit ends the command with status code and prints nothing more (the
// command has already reported).
func silentExit(code int) error { return &exitError{code: code} }
