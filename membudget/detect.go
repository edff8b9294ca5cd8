// Package membudget is the daemon's one memory budget (memory.limit): how
// much memory the machine or the process's cgroup allows, and the Pool
// that query working memory is reserved from (refused with SQLSTATE 53200
// past it). The split of the limit among its parts is the config's
// (config.Memory); the parts are enforced where the memory is held: the
// heap's PageBudget, the store's node cache and Badger options, this
// package's Pool, the node store's write buffer.
package membudget

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Machine is the memory the process may use and where that figure comes
// from.
type Machine struct {
	// Bytes is the smallest of the cgroup memory limits on the process's
	// path (when one is set) and the machine's RAM.
	Bytes uint64
	// Cgroup is true when Bytes is a cgroup limit.
	Cgroup bool
	// From says where Bytes was read ("cgroup v2 /sys/fs/cgroup/x/memory.max",
	// "/proc/meminfo MemTotal").
	From string
}

// Detect reads the process's memory: a cgroup v2 memory.max or v1
// memory.limit_in_bytes on the process's cgroup path (and its ancestors,
// the smallest wins), else /proc/meminfo's MemTotal.
func Detect() (Machine, error) {
	return detect("/proc/self/cgroup", "/sys/fs/cgroup", "/proc/meminfo")
}

func detect(selfCgroup, root, meminfo string) (Machine, error) {
	total, err := memTotal(meminfo)
	if err != nil {
		return Machine{}, err
	}
	m := Machine{Bytes: total, From: meminfo + " MemTotal"}
	if lim, from, ok := cgroupLimit(selfCgroup, root); ok && lim < total {
		m = Machine{Bytes: lim, Cgroup: true, From: from}
	}
	return m, nil
}

// memTotal reads MemTotal from a meminfo file.
func memTotal(path string) (uint64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read the machine's memory: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, err := strconv.ParseUint(f[0], 10, 64)
				if err == nil {
					return kb << 10, nil
				}
			}
		}
	}
	return 0, fmt.Errorf("read the machine's memory: no MemTotal in %s", path)
}

// cgroupLimit finds the smallest memory limit on the process's cgroup
// path, v2 ("0::/path") or v1 (the memory controller's line). A limit file
// that is absent (the path is not visible in this mount namespace) is
// looked for at the mount's root too, which is the process's own cgroup
// in a container with a private cgroup namespace.
func cgroupLimit(selfCgroup, root string) (uint64, string, bool) {
	data, err := os.ReadFile(selfCgroup)
	if err != nil {
		return 0, "", false
	}
	var best uint64
	var from string
	consider := func(file string) {
		b, err := os.ReadFile(file)
		if err != nil {
			return
		}
		s := strings.TrimSpace(string(b))
		if s == "max" {
			return
		}
		n, err := strconv.ParseUint(s, 10, 64)
		// v1 writes "no limit" as a huge page-rounded number.
		if err != nil || n == 0 || n >= 1<<62 {
			return
		}
		if best == 0 || n < best {
			best, from = n, file
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		var dirs []string
		var file, kind string
		switch {
		case parts[0] == "0" && parts[1] == "":
			// v2 alone is mounted at root; beside v1, at root/unified.
			dirs, file, kind = []string{root, filepath.Join(root, "unified")}, "memory.max", "cgroup v2 "
		case hasController(parts[1], "memory"):
			dirs, file, kind = []string{filepath.Join(root, "memory")}, "memory.limit_in_bytes", "cgroup v1 "
		default:
			continue
		}
		before := from
		for _, dir := range dirs {
			for p := filepath.Clean("/" + parts[2]); ; p = filepath.Dir(p) {
				consider(filepath.Join(dir, p, file))
				if p == "/" {
					break
				}
			}
		}
		if from != before {
			from = kind + from
		}
	}
	return best, from, best > 0
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}
