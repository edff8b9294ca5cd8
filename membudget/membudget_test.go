package membudget

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDetect: the smallest cgroup limit on the process's path wins over
// the RAM, v2 and v1; "max" and v1's huge "no limit" are no limit.
func TestDetect(t *testing.T) {
	dir := t.TempDir()
	meminfo := filepath.Join(dir, "meminfo")
	write(t, meminfo, "MemTotal:       16384000 kB\nMemFree: 1 kB\n")
	root := filepath.Join(dir, "cg")
	self := filepath.Join(dir, "self")

	write(t, self, "0::/a/b\n")
	write(t, filepath.Join(root, "a/b/memory.max"), "max\n")
	write(t, filepath.Join(root, "a/memory.max"), "1073741824\n")
	m, err := detect(self, root, meminfo)
	if err != nil || m.Bytes != 1<<30 || !m.Cgroup || !strings.Contains(m.From, "cgroup v2") || !strings.Contains(m.From, "a/memory.max") {
		t.Errorf("v2 parent limit: %+v, %v", m, err)
	}

	write(t, self, "4:memory:/x\n1:cpu:/x\n")
	write(t, filepath.Join(root, "memory/x/memory.limit_in_bytes"), "9223372036854771712\n")
	m, err = detect(self, root, meminfo)
	if err != nil || m.Bytes != 16384000<<10 || m.Cgroup {
		t.Errorf("v1 without a limit: %+v, %v", m, err)
	}
	write(t, filepath.Join(root, "memory/x/memory.limit_in_bytes"), "536870912\n")
	m, err = detect(self, root, meminfo)
	if err != nil || m.Bytes != 512<<20 || !strings.Contains(m.From, "cgroup v1") {
		t.Errorf("v1 limit: %+v, %v", m, err)
	}
	// A limit above the RAM is no limit.
	write(t, filepath.Join(root, "memory/x/memory.limit_in_bytes"), "68719476736\n")
	if m, _ = detect(self, root, meminfo); m.Cgroup {
		t.Errorf("cgroup limit above the RAM chosen: %+v", m)
	}
	if _, err := detect(self, root, filepath.Join(dir, "none")); err == nil {
		t.Error("no meminfo: no error")
	}
	if m, err := Detect(); err != nil || m.Bytes == 0 {
		t.Errorf("this machine: %+v, %v", m, err)
	}
}

// TestPool: reservations past the limit fail and leave the pool as it
// was; accounts give back what they hold.
func TestPool(t *testing.T) {
	p := NewPool("memory.query", 100)
	a, b := NewAccount(p), NewAccount(p)
	if err := a.Grow(60); err != nil {
		t.Fatal(err)
	}
	err := b.Grow(50)
	var ex *ExceededError
	if !errors.As(err, &ex) || ex.Key != "memory.query" || p.Used() != 60 || b.Held() != 0 || p.Refused() != 1 {
		t.Fatalf("past the limit: %v, used %d", err, p.Used())
	}
	if !strings.Contains(err.Error(), "memory.query") {
		t.Errorf("error does not name the key: %v", err)
	}
	if err := b.Grow(40); err != nil {
		t.Fatal(err)
	}
	a.Close()
	b.Close()
	if p.Used() != 0 || p.Peak() != 100 {
		t.Errorf("after close: used %d, peak %d", p.Used(), p.Peak())
	}
	var nilAcct *Account
	if nilAcct.Grow(1<<40) != nil || NewAccount(nil).Grow(1<<40) != nil {
		t.Error("an account without a pool refused")
	}
}

// TestAccountShrink: Shrink gives back part of what an account holds (a
// cursor's fetched rows), never more than it holds; Close gives the rest.
func TestAccountShrink(t *testing.T) {
	p := NewPool("memory.query", 100)
	a := NewAccount(p)
	if err := a.Grow(80); err != nil {
		t.Fatal(err)
	}
	a.Shrink(30)
	if a.Held() != 50 || p.Used() != 50 {
		t.Fatalf("after Shrink(30) of 80: held %d, pool %d", a.Held(), p.Used())
	}
	a.Shrink(500)
	if a.Held() != 0 || p.Used() != 0 {
		t.Fatalf("after Shrink past what is held: held %d, pool %d", a.Held(), p.Used())
	}
	if err := a.Grow(10); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if p.Used() != 0 {
		t.Errorf("after Close: pool %d", p.Used())
	}
	var nilAcct *Account
	nilAcct.Shrink(1)
	NewAccount(nil).Shrink(1)
}
