package seed

import (
	"fmt"
	"strings"
	"testing"
)

// fakeTB records Logf and runs Cleanup functions on demand, reporting
// failed as Failed, so the failure message can be checked without
// failing the real test.
type fakeTB struct {
	*testing.T
	failed   bool
	logs     []string
	cleanups []func()
}

func (f *fakeTB) Helper()                 {}
func (f *fakeTB) Failed() bool            { return f.failed }
func (f *fakeTB) Cleanup(fn func())       { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Logf(s string, a ...any) { f.logs = append(f.logs, fmt.Sprintf(s, a...)) }
func (f *fakeTB) runCleanups() {
	for _, fn := range f.cleanups {
		fn()
	}
}

func TestOr(t *testing.T) {
	zero, set := uint64(0), uint64(42)
	cases := []struct {
		name string
		flag *uint64
		want uint64
	}{
		{"nil flag", nil, 7},
		{"unset flag", &zero, 7},
		{"set flag", &set, 42},
	}
	for _, c := range cases {
		for _, failed := range []bool{false, true} {
			f := &fakeTB{T: t, failed: failed}
			if got := Or(f, c.flag, 7); got != c.want {
				t.Errorf("%s: Or = %d, want %d", c.name, got, c.want)
			}
			f.runCleanups()
			if !failed {
				if len(f.logs) != 0 {
					t.Errorf("%s: passing test logged %q", c.name, f.logs)
				}
				continue
			}
			want := fmt.Sprintf("-seed=%d", c.want)
			if len(f.logs) != 1 || !strings.Contains(f.logs[0], want) || !strings.Contains(f.logs[0], t.Name()) {
				t.Errorf("%s: failing test logged %q, want one line with %q and %q", c.name, f.logs, want, t.Name())
			}
		}
	}
}

func TestNewFlag(t *testing.T) {
	set := uint64(42)
	if got := New(t, &set); got != 42 {
		t.Errorf("New with -seed=42 = %d", got)
	}
	zero := uint64(0)
	if New(t, &zero) == 0 {
		t.Error("New without -seed returned 0")
	}
}

func TestEach(t *testing.T) {
	defs := []uint64{3, 5, 9}
	zero, set := uint64(0), uint64(42)
	f := &fakeTB{T: t}
	var got []uint64
	for s := range Each(f, &zero, defs) {
		got = append(got, s)
	}
	if fmt.Sprint(got) != fmt.Sprint(defs) {
		t.Errorf("Each without -seed yielded %v, want %v", got, defs)
	}
	f = &fakeTB{T: t}
	got = nil
	for s := range Each(f, &set, defs) {
		got = append(got, s)
	}
	if fmt.Sprint(got) != "[42]" {
		t.Errorf("Each with -seed=42 yielded %v, want [42]", got)
	}
	// A failure at the second seed prints that seed, once.
	f = &fakeTB{T: t}
	for s := range Each(f, nil, defs) {
		if s == 5 {
			f.failed = true
			break
		}
	}
	f.runCleanups()
	if len(f.logs) != 1 || !strings.Contains(f.logs[0], "-seed=5") {
		t.Errorf("failure at seed 5 logged %q, want one line with -seed=5", f.logs)
	}
}
