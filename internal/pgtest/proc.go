package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// runAs is the OS identity the server runs as. When the process is root the
// server must run as another user (PostgreSQL refuses root); otherwise it runs
// as ourselves and cred is nil.
type runAs struct {
	cred *syscall.Credential
}

// serverIdentity picks the identity for initdb and postgres.
//
// We switch user with SysProcAttr.Credential rather than `runuser -u postgres
// --`: runuser would sit between us and the server, so Pdeathsig (set on
// runuser) would kill runuser but not the postmaster, and signals for a fast
// shutdown would have to be relayed. With Credential the postmaster is our
// direct child: we can signal it, wait for it, and the kernel delivers it
// SIGKILL when we die.
func serverIdentity() (runAs, error) {
	if os.Geteuid() != 0 {
		return runAs{}, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return runAs{}, fmt.Errorf("running as root, PostgreSQL needs an unprivileged OS user %q (it is created by `apt-get install postgresql`): %w", "postgres", err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return runAs{}, fmt.Errorf("uid of user postgres %q: %w", u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return runAs{}, fmt.Errorf("gid of user postgres %q: %w", u.Gid, err)
	}
	return runAs{cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}, nil
}

// chown gives path to the server's user (no-op when not root).
func (r runAs) chown(path string) error {
	if r.cred == nil {
		return nil
	}
	if err := os.Chown(path, int(r.cred.Uid), int(r.cred.Gid)); err != nil {
		return fmt.Errorf("chown %s to postgres: %w", path, err)
	}
	return nil
}

// command builds a command for a PostgreSQL binary with a clean environment
// (no inherited PG* variables: PGPORT, PGDATA, PGHOST would change what the
// tools do), run as r, in its own process group (a ^C on the terminal reaches
// the test binary, which then stops the server in order), and killed by the
// kernel when the thread that started it dies.
func (r runAs) command(path string, args ...string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	env := []string{"LC_ALL=C", "TZ=UTC"}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential: r.cred,
		Pdeathsig:  syscall.SIGKILL,
		Setpgid:    true,
	}
	return cmd
}

// proc is a started child process whose parent-death signal is reliable.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited and been reaped
	err  error         // Wait's result; read only after done is closed
}

// ServerGoroutine is the function in which the harness waits for a running
// server, for goroutine-leak checks of tests that Restart a cluster:
// goleak.IgnoreAnyFunction(pgtest.ServerGoroutine). Stop ends it.
const ServerGoroutine = "github.com/sidecar-dev/sidecar/internal/pgtest.(*proc).run"

// startProc starts cmd from a goroutine locked to its OS thread and keeps that
// goroutine (and so the thread) alive until the child exits.
//
// Pdeathsig fires when the *thread* that forked the child exits, not the
// process (golang/go#27505). The Go runtime may retire idle threads, which
// would kill a long-lived server out of the blue; a locked thread that waits
// for the child is never retired, so the signal fires only when the whole
// process dies.
func startProc(cmd *exec.Cmd) (*proc, error) {
	p := &proc{cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go p.run(started)
	if err := <-started; err != nil {
		<-p.done
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	return p, nil
}

// run starts the process, reports the outcome on started, and waits for the
// process to exit.
func (p *proc) run(started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(p.done)
	if err := p.cmd.Start(); err != nil {
		p.err = err
		started <- err
		return
	}
	started <- nil
	p.err = p.cmd.Wait()
}

// exited reports whether the process has exited.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}
