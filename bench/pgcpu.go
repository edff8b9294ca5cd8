package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgreSQL's CPU time, read from /proc: the load-robust half of a
// query's cost. On a machine shared with other work a query's wall time
// measures the load as much as the engine (session 22: the sidecar's wall
// time was 5–25× its CPU), while the CPU a process spends on a query
// barely moves with the load. The sidecar runs in this process (its CPU
// is getrusage's); PostgreSQL runs in the throwaway cluster's processes:
// the postmaster's children (the session's backend, parallel workers,
// the background processes and the sidecar's walsender), whose CPU is
// summed here.

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on
// every Linux architecture Go supports (the kernel scales to it whatever
// its internal HZ; sysconf(_SC_CLK_TCK) answers the same constant).
const clockTicks = 100

// procStat is the part of /proc/<pid>/stat the CPU sum reads.
type procStat struct {
	pid, ppid int
	// utime, stime: the process's own user and system time; cutime,
	// cstime: the times of its children it has waited for.
	utime, stime, cutime, cstime time.Duration
}

// parseProcStat parses one /proc/<pid>/stat line. The command name (the
// second field) is parenthesized and may hold spaces and parentheses, so
// the fields are counted after its last ')'.
func parseProcStat(b []byte) (procStat, error) {
	var s procStat
	open, closing := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || closing < open {
		return s, fmt.Errorf("proc stat %q: no (comm)", truncate(string(b), 80))
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:open])))
	if err != nil {
		return s, fmt.Errorf("proc stat pid: %w", err)
	}
	// After the comm: state(3) ppid(4) pgrp session tty_nr tpgid flags
	// minflt cminflt majflt cmajflt utime(14) stime(15) cutime(16)
	// cstime(17).
	f := strings.Fields(string(b[closing+1:]))
	if len(f) < 15 {
		return s, fmt.Errorf("proc stat of %d: %d fields after the command name, want ≥ 15", pid, len(f))
	}
	var n [5]int64
	for i, idx := range [5]int{1, 11, 12, 13, 14} { // ppid utime stime cutime cstime
		if n[i], err = strconv.ParseInt(f[idx], 10, 64); err != nil {
			return s, fmt.Errorf("proc stat of %d field %d: %w", pid, idx+3, err)
		}
	}
	tick := func(v int64) time.Duration { return time.Duration(v) * time.Second / clockTicks }
	return procStat{pid: pid, ppid: int(n[0]), utime: tick(n[1]), stime: tick(n[2]), cutime: tick(n[3]), cstime: tick(n[4])}, nil
}

// clusterCPU is the CPU time spent so far by the PostgreSQL cluster whose
// postmaster is pid, under procRoot (/proc): the postmaster's own time,
// the time of its children it has reaped (backends of sessions that
// ended — a psql `\copy`'s —, parallel and autovacuum workers that
// exited: the kernel adds them to its cutime/cstime when it waits for
// them), and the time of its living children. The difference of two
// readings is the cluster's CPU between them. A child reaped between
// the read of the postmaster's times and the walk of its children would
// be in neither, so the walk is taken again until the postmaster's
// times are the same before and after it. Its resolution is one tick
// (10 ms) per process.
func clusterCPU(procRoot string, pid int) (time.Duration, error) {
	for range 20 {
		before, err := postmasterCPU(procRoot, pid)
		if err != nil {
			return 0, err
		}
		live, err := childrenCPU(procRoot, pid)
		if err != nil {
			return 0, err
		}
		after, err := postmasterCPU(procRoot, pid)
		if err != nil {
			return 0, err
		}
		if after == before {
			return before + live, nil
		}
	}
	return 0, fmt.Errorf("PostgreSQL's CPU: postmaster %d reaped a child during every walk of its children", pid)
}

// postmasterCPU is the postmaster's own CPU and its reaped children's.
func postmasterCPU(procRoot string, pid int) (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, fmt.Errorf("postmaster %d: %w", pid, err)
	}
	pm, err := parseProcStat(b)
	if err != nil {
		return 0, err
	}
	return pm.utime + pm.stime + pm.cutime + pm.cstime, nil
}

// childrenCPU is the CPU of the postmaster's living children.
func childrenCPU(procRoot string, pid int) (time.Duration, error) {
	ents, err := os.ReadDir(procRoot)
	if err != nil {
		return 0, fmt.Errorf("list %s: %w", procRoot, err)
	}
	var total time.Duration
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil || e.Name() == strconv.Itoa(pid) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "stat"))
		if err != nil {
			continue // exited since the listing
		}
		s, err := parseProcStat(b)
		if err != nil || s.ppid != pid {
			continue
		}
		// A backend forks nothing PostgreSQL waits for, so its children's
		// times are not counted again here.
		total += s.utime + s.stime
	}
	return total, nil
}

// postmasterPID reads the postmaster's pid from the first line of
// postmaster.pid in the cluster's data directory.
func postmasterPID(dataDir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("postmaster.pid in %s: first line %q is not a pid", dataDir, line)
	}
	return pid, nil
}

// pgCPUMeter reads a cluster's CPU before and after each query.
type pgCPUMeter struct {
	procRoot string
	pid      int
}

// newPGCPUMeter finds the cluster's postmaster in dataDir and checks that
// its CPU can be read.
func newPGCPUMeter(dataDir string) (*pgCPUMeter, error) {
	pid, err := postmasterPID(dataDir)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL's CPU: %w", err)
	}
	m := &pgCPUMeter{procRoot: "/proc", pid: pid}
	if _, err := m.read(); err != nil {
		return nil, fmt.Errorf("PostgreSQL's CPU: %w", err)
	}
	return m, nil
}

// serverOf finds the cluster conn is connected to (on this machine):
// its backend's parent, the postmaster.
func serverOf(ctx context.Context, conn *pgx.Conn) (*pgCPUMeter, error) {
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return nil, fmt.Errorf("PostgreSQL's CPU: backend pid: %w", err)
	}
	s, err := readProcStat("/proc", backend)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL's CPU: %w", err)
	}
	m := &pgCPUMeter{procRoot: "/proc", pid: s.ppid}
	if _, err := m.read(); err != nil {
		return nil, err
	}
	return m, nil
}

// readProcStat reads and parses procRoot/pid/stat.
func readProcStat(procRoot string, pid int) (procStat, error) {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(b)
}

// read is the cluster's CPU so far.
func (m *pgCPUMeter) read() (time.Duration, error) { return clusterCPU(m.procRoot, m.pid) }
