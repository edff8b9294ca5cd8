package bench

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// Env describes where a benchmark ran, for the report's setup section.
type Env struct {
	CPU        string `json:"cpu"`
	NumCPU     int    `json:"num_cpu"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	MemTotal   string `json:"mem_total"`
	Kernel     string `json:"kernel"`
	GoVersion  string `json:"go_version"`
	OSArch     string `json:"os_arch"`
	Commit     string `json:"commit"`
	// Dirty lists the uncommitted paths of the measured code (prolly,
	// store, addr and the prolly benchmark's files) at run time; empty when
	// they were clean.
	Dirty []string `json:"dirty,omitempty"`
	// DirtyElsewhere: other paths of the work tree were uncommitted.
	DirtyElsewhere bool `json:"dirty_elsewhere"`
}

// measuredPaths are the path prefixes of the code a prolly benchmark
// times or that produces its report (other subjects' files in bench/ are
// not).
var measuredPaths = []string{"prolly/", "store/", "addr/",
	"bench/prolly", "bench/diffmerge", "bench/measure", "bench/workload", "bench/seed", "bench/env", "bench/markdown", "bench/doc"}

// CollectEnv reads the machine, Go and source revision. Fields it cannot
// learn are left empty; it never fails.
func CollectEnv(ctx context.Context) Env {
	e := Env{
		NumCPU:     runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		GoVersion:  runtime.Version(),
		OSArch:     runtime.GOOS + "/" + runtime.GOARCH,
	}
	e.CPU = procField("/proc/cpuinfo", "model name")
	e.MemTotal = procField("/proc/meminfo", "MemTotal")
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		e.Kernel = strings.TrimSpace(string(b))
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				e.Commit = s.Value
			case "vcs.modified":
				e.DirtyElsewhere = s.Value == "true"
			}
		}
	}
	// go run and go test do not stamp VCS data: ask git (best effort).
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if e.Commit == "" {
		if out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output(); err == nil {
			e.Commit = strings.TrimSpace(string(out))
		}
	}
	if out, err := exec.CommandContext(ctx, "git", "status", "--porcelain").Output(); err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			if len(line) < 4 {
				continue
			}
			path := strings.TrimSpace(line[3:])
			if strings.HasPrefix(path, "bench/results/") {
				continue // reports, not code
			}
			measured := false
			for _, p := range measuredPaths {
				if strings.HasPrefix(path, p) {
					measured = true
				}
			}
			if measured {
				e.Dirty = append(e.Dirty, path)
			} else {
				e.DirtyElsewhere = true
			}
		}
	}
	return e
}

// procField returns the value of the first "key: value" line of a /proc
// file, or "".
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// loadAvg returns the 1-minute load average, or "" if unknown.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
