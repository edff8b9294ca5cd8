package daemontest

import (
	"bytes"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Process is a sidecar running as a child process (`sidecar run`, or a
// test binary re-executed as one), so that it can be killed with SIGKILL.
// Its output is kept; it is killed when the test ends if still running.
type Process struct {
	Cmd *exec.Cmd

	out  Buffer
	done chan error
	err  error
	over bool
}

// StartProcess starts cmd (its output captured: stderr, and stdout unless
// cmd sends it elsewhere; killed with the test and if the test binary
// dies).
func StartProcess(t testing.TB, cmd *exec.Cmd) *Process {
	t.Helper()
	p := &Process{Cmd: cmd, done: make(chan error, 1)}
	if cmd.Stdout == nil {
		cmd.Stdout = &p.out
	}
	cmd.Stderr = &p.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if !p.over {
			cmd.Process.Kill()
			p.reap()
		}
	})
	return p
}

func (p *Process) reap() error {
	if !p.over {
		p.err, p.over = <-p.done, true
	}
	return p.err
}

// Output is what the process wrote so far (stdout and stderr).
func (p *Process) Output() string { return p.out.String() }

// OutputTail is the end of Output, for a failure message.
func (p *Process) OutputTail() string { return p.out.Tail() }

// Exited reports whether the process has exited by itself, and how.
func (p *Process) Exited() (err error, ok bool) { return p.waitFor(0) }

// Wait waits up to within (Ceiling when 0) for the process to exit by
// itself, and returns how; ok is false when it still runs.
func (p *Process) Wait(within time.Duration) (err error, ok bool) {
	return p.waitFor(orCeiling(within))
}

func (p *Process) waitFor(d time.Duration) (error, bool) {
	if p.over {
		return p.err, true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case p.err = <-p.done:
	case <-timer.C:
		select {
		case p.err = <-p.done:
		default:
			return nil, false
		}
	}
	p.over = true
	return p.err, true
}

// Kill9 ends the process with SIGKILL and reaps it. It returns an error
// if the process had already exited by itself.
func (p *Process) Kill9() error {
	if err, ok := p.Exited(); ok {
		return fmt.Errorf("the sidecar exited by itself (%v):\n%s", err, Tail(p.Output()))
	}
	p.Cmd.Process.Signal(syscall.SIGKILL)
	p.reap()
	return nil
}

// Stop ends the process with SIGTERM and waits up to within (Ceiling
// when 0) for a clean exit.
func (p *Process) Stop(within time.Duration) error {
	if err, ok := p.Exited(); ok {
		return fmt.Errorf("the sidecar had exited by itself (%v):\n%s", err, Tail(p.Output()))
	}
	p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case p.err = <-p.done:
		p.over = true
		if p.err != nil {
			return fmt.Errorf("the sidecar's clean stop failed (%v):\n%s", p.err, Tail(p.Output()))
		}
		return nil
	case <-time.After(orCeiling(within)):
		return fmt.Errorf("the sidecar did not stop within %s:\n%s", orCeiling(within), Tail(p.Output()))
	}
}

// Tail is the end of a long output (the last 6000 bytes), for a
// failure message.
func Tail(s string) string {
	return s[max(0, len(s)-6000):]
}

// FreeAddr is a loopback address free a moment ago, for a child whose
// API must listen where the test looks across restarts.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Binary builds cmd/sidecar into a temporary directory of t and returns
// its path.
func Binary(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "sidecar")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/sidecar-dev/sidecar/cmd/sidecar").CombinedOutput()
	if err != nil {
		t.Fatalf("build the sidecar binary: %v\n%s", err, out)
	}
	return bin
}

// Buffer is a bytes.Buffer safe for one writer and many readers (a
// daemon's log read while it runs).
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Tail is the end of what was written (see Tail).
func (l *Buffer) Tail() string { return Tail(l.String()) }
