package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// A PostgreSQL server's CPU, read from /proc (issue 24 item 5: on a
// loaded machine wall times are the load's; the copy is compared by CPU
// too, the sidecar's against what PostgreSQL spends serving `\copy`).
// The server's CPU is the postmaster's own, its children's that it has
// reaped (cutime/cstime: a backend that ended, a psql session's), and
// its live children's (the copy's backends, the walsender): a delta of
// it over a window is the server's CPU in that window, whichever of its
// processes ended meanwhile.

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times (100 on
// every Linux architecture Go runs on).
const clockTicks = 100

// pgServer measures one PostgreSQL server's CPU.
type pgServer struct{ postmaster int }

// serverOf finds the server conn is connected to: its backend's parent,
// the postmaster (the server must be on this machine).
func serverOf(ctx context.Context, conn *pgx.Conn) (pgServer, error) {
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return pgServer{}, fmt.Errorf("server's CPU: backend pid: %w", err)
	}
	f, err := procStat(backend)
	if err != nil {
		return pgServer{}, fmt.Errorf("server's CPU: %w", err)
	}
	pp, err := strconv.Atoi(f[1])
	if err != nil {
		return pgServer{}, fmt.Errorf("server's CPU: parent of %d: %w", backend, err)
	}
	return pgServer{postmaster: pp}, nil
}

// cpu is the server's CPU so far (see above). A backend the postmaster
// reaps between the read of its own times and the walk of its children
// would be in neither: the walk is taken again until the postmaster's
// reaped times are the same before and after it.
func (s pgServer) cpu() (time.Duration, error) {
	for range 20 {
		before, err := s.reaped()
		if err != nil {
			return 0, err
		}
		live, err := s.children()
		if err != nil {
			return 0, err
		}
		after, err := s.reaped()
		if err != nil {
			return 0, err
		}
		if after == before {
			return time.Duration(before+live) * time.Second / clockTicks, nil
		}
	}
	return 0, fmt.Errorf("server's CPU: postmaster %d reaped a backend during every walk", s.postmaster)
}

// reaped is the postmaster's own CPU and its reaped children's, in
// clock ticks.
func (s pgServer) reaped() (int64, error) {
	f, err := procStat(s.postmaster)
	if err != nil {
		return 0, fmt.Errorf("server's CPU: %w", err)
	}
	// utime stime cutime cstime: fields 14–17, f[11:15] after pid and comm.
	ticks, err := sumFields(f[11:15])
	if err != nil {
		return 0, fmt.Errorf("server's CPU: postmaster %d: %w", s.postmaster, err)
	}
	return ticks, nil
}

// children is the CPU of the postmaster's live children, in clock ticks.
func (s pgServer) children() (int64, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("server's CPU: %w", err)
	}
	var ticks int64
	parent := strconv.Itoa(s.postmaster)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cf, err := procStat(pid)
		if err != nil || cf[1] != parent {
			continue // gone meanwhile, or not the server's
		}
		t, err := sumFields(cf[11:13])
		if err != nil {
			continue
		}
		ticks += t
	}
	return ticks, nil
}

// procStat returns the fields of /proc/pid/stat after the command name
// (state first: f[0] is field 3, f[1] the parent's pid).
func procStat(pid int) ([]string, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return nil, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	return f, nil
}

func sumFields(f []string) (int64, error) {
	var n int64
	for _, s := range f {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, err
		}
		n += v
	}
	return n, nil
}
