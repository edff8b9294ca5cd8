package sqlfront_test

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// processCPU is the user+system CPU time of this process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// logP99 reads pgbench's per-transaction logs (-l) in dir: the third
// field is the latency in µs. It returns the 99th percentile in ms.
func logP99(t *testing.T, dir string) float64 {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "tx*"))
	var lat []float64
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) >= 3 {
				if us, err := strconv.ParseFloat(fs[2], 64); err == nil {
					lat = append(lat, us/1000)
				}
			}
		}
		fh.Close()
	}
	if len(lat) == 0 {
		return 0
	}
	slices.Sort(lat)
	return lat[len(lat)*99/100]
}
