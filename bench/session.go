package bench

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// OwnSession makes this process the leader of a session of its own and
// says which scheduling autogroup it is in now. With Linux's autogroup
// scheduling (kernel.sched_autogroup_enabled=1, Debian's default) the CPU
// is shared first between sessions and only then between the threads of
// one: every PostgreSQL backend and parallel worker calls setsid() and
// so is an autogroup of its own, while a benchmark started from a shell
// shares that shell's autogroup with whatever else it runs (builds,
// test suites). At load the in-process sidecar then got one share among
// the shell's jobs against one share per PostgreSQL process: session
// 26 measured the tpch bench's threads at 0.03–0.09 CPU-seconds a
// second with 2–4 of them runnable and waiting, while PostgreSQL's
// backend took 0.38 for Q2. In a session of its own the sidecar (every
// thread of this process: setsid moves them all) has one share, as one
// PostgreSQL backend does. An error is returned where setsid fails
// (already a session or process group leader: nothing changes).
func OwnSession() (string, error) {
	_, err := syscall.Setsid()
	ag := "autogroup unknown"
	if b, rerr := os.ReadFile("/proc/self/autogroup"); rerr == nil {
		ag = strings.TrimSpace(string(b))
	}
	if err != nil {
		return ag, fmt.Errorf("setsid: %w", err)
	}
	return ag, nil
}
