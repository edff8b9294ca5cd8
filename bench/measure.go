package bench

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Cell is one timed measurement of the matrix: Samples holds one duration
// per repetition, each for Ops operations (rows, calls or changes).
//
// CPU holds the process's CPU time (user + system, all threads: the
// caller's and the store's background writers and Badger's) over the same
// timed intervals. On a shared machine wall time includes waiting for a
// core; CPU time does not, so a cell whose wall time is far above its CPU
// time was either waiting for I/O or for the machine.
type Cell struct {
	ID      string          `json:"id"`
	Ops     int             `json:"ops"`
	Samples []time.Duration `json:"samples_ns"`
	CPU     []time.Duration `json:"cpu_ns"`
	// DiskRead and DiskWrite are the bytes the process made the storage
	// layer read and write over the timed intervals (/proc/self/io):
	// reads served by the page cache are not counted.
	DiskRead  []int64 `json:"disk_read_bytes"`
	DiskWrite []int64 `json:"disk_write_bytes"`
	// RunqWait is the time the process's threads spent runnable but
	// waiting for a CPU (summed over threads, /proc/self/task/*/schedstat)
	// over the timed intervals: the share of the wall time that other
	// load on the shared machine took. Not measured (nil) for cells timed
	// call by call.
	RunqWait []time.Duration `json:"runq_wait_ns,omitempty"`
	// NodeReads and NodePuts count, per repetition, the nodes the store
	// read from Badger (cache misses) and the nodes handed to it (Put):
	// the work the cell did, independent of the machine.
	NodeReads []int64 `json:"node_reads"`
	NodePuts  []int64 `json:"node_puts"`
	// SysCPU is the kernel's share of CPU, and MinorFaults the page faults
	// served without I/O (getrusage), over the timed intervals: a cold
	// read of a node maps its value-log page into the process on first
	// touch, which shows here, not in DiskRead.
	SysCPU      []time.Duration `json:"sys_cpu_ns,omitempty"`
	MinorFaults []int64         `json:"minor_faults,omitempty"`
}

// MedianSysCPU returns the median of SysCPU.
func (c *Cell) MedianSysCPU() time.Duration { return median(c.SysCPU) }

// MedianMinorFaults returns the median of MinorFaults.
func (c *Cell) MedianMinorFaults() int64 { return median(c.MinorFaults) }

// MedianNodeReads returns the median of NodeReads.
func (c *Cell) MedianNodeReads() int64 { return median(c.NodeReads) }

// MedianNodePuts returns the median of NodePuts.
func (c *Cell) MedianNodePuts() int64 { return median(c.NodePuts) }

// MedianRunqWait returns the median of RunqWait, or -1 if not measured.
func (c *Cell) MedianRunqWait() time.Duration {
	if len(c.RunqWait) == 0 {
		return -1
	}
	return median(c.RunqWait)
}

// MedianDiskRead returns the median of DiskRead.
func (c *Cell) MedianDiskRead() int64 { return median(c.DiskRead) }

// MedianDiskWrite returns the median of DiskWrite.
func (c *Cell) MedianDiskWrite() int64 { return median(c.DiskWrite) }

// MedianCPU returns the median CPU time.
func (c *Cell) MedianCPU() time.Duration { return median(c.CPU) }

// median returns the median of xs, the lower middle one for an even count
// (a sample that was measured, never an average of two), or zero for none.
func median[T cmp.Ordered](xs []T) T {
	if len(xs) == 0 {
		var zero T
		return zero
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// percentile returns the p-th percentile of xs by nearest rank (100 is
// the maximum), or zero for none.
func percentile[T cmp.Ordered](xs []T, p float64) T {
	if len(xs) == 0 {
		var zero T
		return zero
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[max(0, min(len(s)-1, i))]
}

// timer accumulates wall time, process CPU time (see Cell.CPU)
// and the process's storage I/O over the same brackets, and, unless
// noWait, the run-queue wait of its threads (reading it costs ~0.1 ms, too
// much around each of 10k calls).
type timer struct {
	noWait bool
	// nodes, if set, returns the store's cumulative node reads and puts.
	nodes       func() (reads, puts int64)
	reads, puts int64
	r0, p0      int64
	wall, cpu   time.Duration
	sys         time.Duration
	faults      int64
	wait        time.Duration
	io          ioCounters
	w0          time.Time
	c0, q0      time.Duration
	ru0         rusage
	io0         ioCounters
}

func (t *timer) start() {
	if t.nodes != nil {
		t.r0, t.p0 = t.nodes()
	}
	t.io0 = readIOCounters()
	if !t.noWait {
		t.q0 = runqWait()
	}
	t.ru0 = readRusage()
	t.c0 = t.ru0.user + t.ru0.sys
	t.w0 = time.Now()
}

func (t *timer) stop() {
	t.wall += time.Since(t.w0)
	ru := readRusage()
	t.cpu += ru.user + ru.sys - t.c0
	t.sys += ru.sys - t.ru0.sys
	t.faults += ru.minflt - t.ru0.minflt
	if !t.noWait {
		t.wait += runqWait() - t.q0
	}
	io := readIOCounters()
	t.io.Read += io.Read - t.io0.Read
	t.io.Write += io.Write - t.io0.Write
	if t.nodes != nil {
		r, p := t.nodes()
		t.reads += r - t.r0
		t.puts += p - t.p0
	}
}

// add appends the timer's measurements to c as one repetition.
func (t *timer) add(c *Cell) {
	c.Samples = append(c.Samples, t.wall)
	c.CPU = append(c.CPU, t.cpu)
	c.SysCPU = append(c.SysCPU, t.sys)
	c.MinorFaults = append(c.MinorFaults, t.faults)
	c.DiskRead = append(c.DiskRead, t.io.Read)
	c.DiskWrite = append(c.DiskWrite, t.io.Write)
	if !t.noWait {
		c.RunqWait = append(c.RunqWait, t.wait)
	}
	c.NodeReads = append(c.NodeReads, t.reads)
	c.NodePuts = append(c.NodePuts, t.puts)
}

// runqWait returns the time all of the process's threads have spent
// waiting on a run queue (second field of /proc/self/task/*/schedstat),
// or 0 when the kernel does not expose it. Threads that exited between
// two readings drop out of the sum, so deltas are a lower bound.
func runqWait() time.Duration {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0
	}
	var total int64
	for _, tk := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + tk.Name() + "/schedstat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			continue
		}
		if ns, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			total += ns
		}
	}
	return time.Duration(total)
}

// processCPU returns the user + system CPU time of the whole process.
func processCPU() time.Duration {
	ru := readRusage()
	return ru.user + ru.sys
}

// rusage is the part of getrusage(RUSAGE_SELF) the timer keeps.
type rusage struct {
	user, sys time.Duration
	minflt    int64
}

func readRusage() rusage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return rusage{}
	}
	return rusage{user: time.Duration(ru.Utime.Nano()), sys: time.Duration(ru.Stime.Nano()), minflt: ru.Minflt}
}

// Median returns the median sample (the lower middle one for an even count).
func (c *Cell) Median() time.Duration { return median(c.Samples) }

// Min returns the fastest sample.
func (c *Cell) Min() time.Duration {
	if len(c.Samples) == 0 {
		return 0
	}
	return slices.Min(c.Samples)
}

// Max returns the slowest sample.
func (c *Cell) Max() time.Duration {
	if len(c.Samples) == 0 {
		return 0
	}
	return slices.Max(c.Samples)
}

// PerOp returns the median divided by Ops.
func (c *Cell) PerOp() time.Duration {
	if c.Ops == 0 {
		return 0
	}
	return c.Median() / time.Duration(c.Ops)
}

// resetPeakRSS resets the kernel's peak-RSS counter (VmHWM) of this process
// by writing 5 to /proc/self/clear_refs (Linux 4.0+), so that a later
// readPeakRSS measures one phase only.
func resetPeakRSS() error {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return fmt.Errorf("reset peak RSS: %w", err)
	}
	return nil
}

// readPeakRSS returns VmHWM from /proc/self/status, in bytes.
func readPeakRSS() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("read peak RSS: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read peak RSS: parse %q: %w", rest, err)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read peak RSS: %w", err)
	}
	return 0, fmt.Errorf("read peak RSS: no VmHWM line in /proc/self/status")
}

// diskUsage returns the bytes allocated on disk to the files under dir
// (st_blocks × 512, like du): Badger preallocates and mmaps sparse files, so
// apparent sizes would overstate the footprint.
func diskUsage(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			total += st.Blocks * 512
		} else {
			total += info.Size()
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("disk usage of %s: %w", dir, err)
	}
	return total, nil
}

// fmtDur prints a duration with three significant digits in the unit that
// suits it (ns, µs, ms, s).
func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < time.Microsecond:
		return fmt.Sprintf("%d ns", d.Nanoseconds())
	case d < time.Millisecond:
		return sig3(float64(d)/float64(time.Microsecond)) + " µs"
	case d < time.Second:
		return sig3(float64(d)/float64(time.Millisecond)) + " ms"
	default:
		return sig3(d.Seconds()) + " s"
	}
}

// sig3 formats x (≥ 1) with three significant digits.
func sig3(x float64) string {
	switch {
	case x >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	default:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
}

// fmtBytes prints a byte count in MiB or GiB.
func fmtBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return sig3(float64(b)/(1<<30)) + " GiB"
	case b >= 1<<20:
		return sig3(float64(b)/(1<<20)) + " MiB"
	case b >= 1<<10:
		return sig3(float64(b)/(1<<10)) + " KiB"
	default:
		return strconv.FormatInt(b, 10) + " B"
	}
}

// fmtCount prints n with thousands separators.
func fmtCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return "-" + fmtCount(-n)
	}
	var b bytes.Buffer
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// fmtRecords prints a record count the way the seed does: 1M, 10M, 20k.
func fmtRecords(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n >= 1_000 && n%1_000 == 0:
		return strconv.Itoa(n/1_000) + "k"
	default:
		return strconv.Itoa(n)
	}
}

// ioCounters are the storage bytes this process caused to be read and
// written (/proc/self/io read_bytes, write_bytes): page-cache hits are not
// counted, so a non-zero read count means the "cold" cell went to the disk.
type ioCounters struct {
	Read, Write int64
}

// readIOCounters returns the process's I/O counters, zero if unavailable.
func readIOCounters() ioCounters {
	var c ioCounters
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return c
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "read_bytes":
			c.Read = n
		case "write_bytes":
			c.Write = n
		}
	}
	return c
}

// readRSSSplit returns RssAnon and RssFile from /proc/self/status, in
// bytes (zero when unknown).
func readRSSSplit() (anon, file int64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "RssAnon":
			anon = kb << 10
		case "RssFile":
			file = kb << 10
		}
	}
	return anon, file
}
