package verify

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	flagParRows = flag.Int("verify.parrows", 0, "measure serial vs parallel level 0 through Runner at this many rows (e.g. 1000000); skipped when 0")
	flagParReps = flag.Int("verify.parreps", 3, "repetitions per cell for -verify.parrows")
	flagParPQ   = flag.Bool("verify.parpq", false, "with -verify.parrows: leave PostgreSQL's own parallel query on (default: max_parallel_workers_per_gather = 0, as bench/verify)")
)

// TestParallelLevel0Measure compares, through the whole Runner (pin,
// catch-up, level 0, mirror digests), verify of a table shaped like the
// benchmark's (id bigint PK, k text, v text, score int) with level 0 on
// one connection and split over 2 workers: wall time, this process's CPU
// and the CPU of every PostgreSQL process of the cluster (sampled from
// /proc every 10 ms: the pinned backend, the workers, the walsender).
// Run with -verify.parrows N; cells alternate so that machine noise hits
// both.
func TestParallelLevel0Measure(t *testing.T) {
	rows := *flagParRows
	if rows == 0 {
		t.Skip("pass -verify.parrows N to measure the parallel level 0")
	}
	schema := []string{
		`CREATE TABLE t (id bigint PRIMARY KEY, k text, v text, score int)`,
		fmt.Sprintf(`INSERT INTO t SELECT i, left(md5(i::text), 24), left(md5((i+1)::text) || 'x', 27), (hashint8(i) & 1023)::int FROM generate_series(1, %d) i`, rows),
		`VACUUM (ANALYZE, FREEZE) t`,
	}
	if !*flagParPQ {
		schema = append(schema, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET max_parallel_workers_per_gather = 0', current_database()); END $$`)
	}
	p := newPipeline(t, []string{"public.t"}, schema...)
	p.start()
	var pm int
	if err := p.conn.QueryRow(t.Context(), "SELECT pg_backend_pid()").Scan(&pm); err != nil {
		t.Fatal(err)
	}
	pm, err := parentPID(pm)
	if err != nil {
		t.Fatal(err)
	}
	type cell struct {
		wall, self, pg []time.Duration
	}
	cells := map[int]*cell{1: {}, 2: {}}
	run := func(workers int, keep bool) {
		r := p.runner()
		r.Workers = workers
		// The default threshold (1M) decides at full size; below it the
		// run still measures the split.
		r.Options.ParallelRows = 1
		s := startPGSampler(pm)
		self0 := selfCPU()
		start := time.Now()
		rep := mustRun(t, r)
		wall := time.Since(start)
		self := selfCPU() - self0
		pgCPU := s.stop()
		tr := rep.Tables[0]
		if rep.Result != ResultEqual || tr.PostgresCount != uint64(rows) {
			t.Fatalf("workers %d: want equal with %d rows:\n%s", workers, rows, reportSummary(rep))
		}
		if want := map[int]int{1: 0, 2: 2}[workers]; tr.Workers != want {
			t.Fatalf("workers %d: level 0 on %d connections", workers, tr.Workers)
		}
		if keep {
			c := cells[workers]
			c.wall, c.self, c.pg = append(c.wall, wall), append(c.self, self), append(c.pg, pgCPU)
		}
	}
	run(1, false)
	run(2, false)
	for range *flagParReps {
		run(1, true)
		run(2, true)
	}
	med := func(ds []time.Duration) string {
		s := slices.Clone(ds)
		slices.Sort(s)
		return fmt.Sprintf("%v (%v–%v)", s[len(s)/2].Round(time.Millisecond), s[0].Round(time.Millisecond), s[len(s)-1].Round(time.Millisecond))
	}
	for _, w := range []int{1, 2} {
		c := cells[w]
		t.Logf("rows %d, level-0 workers %d (PostgreSQL parallel query %v): wall %s, PostgreSQL CPU %s, sidecar CPU %s",
			rows, w, *flagParPQ, med(c.wall), med(c.pg), med(c.self))
	}
}

// selfCPU is this process's user+system CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procStat returns the parent pid and user+system CPU ticks of pid.
func procStat(pid int) (ppid int, ticks uint64, err error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: no command", pid)
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ppid, _ = strconv.Atoi(f[1])
	u, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	return ppid, u + st, nil
}

func parentPID(pid int) (int, error) {
	ppid, _, err := procStat(pid)
	return ppid, err
}

// pgSampler sums the CPU the children of a postmaster spend while it
// runs: per process, the last sample minus the first (zero for one that
// started after the sampler). A process that exits between samples loses
// at most one interval.
type pgSampler struct {
	pm    int
	first map[int]uint64
	last  map[int]uint64
	stopc chan struct{}
	wg    sync.WaitGroup
}

func startPGSampler(pm int) *pgSampler {
	s := &pgSampler{pm: pm, first: map[int]uint64{}, last: map[int]uint64{}, stopc: make(chan struct{})}
	s.sample(true)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-s.stopc:
				return
			case <-tick.C:
				s.sample(false)
			}
		}
	}()
	return s
}

func (s *pgSampler) sample(initial bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, ticks, err := procStat(pid)
		if err != nil || ppid != s.pm {
			continue
		}
		if _, ok := s.first[pid]; !ok {
			if initial {
				s.first[pid] = ticks
			} else {
				s.first[pid] = 0
			}
		}
		s.last[pid] = ticks
	}
}

// stop ends sampling and returns the CPU time (100 ticks a second).
func (s *pgSampler) stop() time.Duration {
	close(s.stopc)
	s.wg.Wait()
	s.sample(false)
	var total uint64
	for pid, l := range s.last {
		total += l - s.first[pid]
	}
	return time.Duration(total) * (time.Second / 100)
}
