// Package seed is the one seed helper of the random tests: a test takes
// its seed from a -seed flag when one is given (to replay a failure) or
// from the clock (New) or a fixed default (Or), and on failure prints how
// to rerun it with that seed.
package seed

import (
	"flag"
	"iter"
	"strconv"
	"testing"
	"time"
)

// Flag registers -seed on the default flag set, at package level: var
// seedFlag = seed.Flag(). A package's internal and external test files
// are one binary: a second call returns the flag the first registered
// (registering it twice panics).
func Flag() *uint64 {
	if f := flag.Lookup("seed"); f != nil {
		if v, ok := f.Value.(seedValue); ok {
			return v.p
		}
	}
	v := seedValue{p: new(uint64)}
	flag.Var(v, "seed", "seed of the random tests (0: from the clock or the test's fixed default)")
	return v.p
}

// seedValue is -seed's flag.Value: an unsigned 64-bit integer.
type seedValue struct{ p *uint64 }

func (v seedValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatUint(*v.p, 10)
}

func (v seedValue) Set(s string) error {
	n, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

// New returns *flagValue when it is set, else a seed from the clock, and
// arranges for a failing t to print "rerun with -run '^Name$' -seed=N".
func New(t testing.TB, flagValue *uint64) uint64 {
	t.Helper()
	return Or(t, flagValue, uint64(time.Now().UnixNano()))
}

// Or returns *flagValue when it is set, else def, for tests that keep a
// fixed default seed; like New it arranges for a failing t to print how
// to rerun with the seed used.
func Or(t testing.TB, flagValue *uint64, def uint64) uint64 {
	t.Helper()
	s := def
	if flagValue != nil && *flagValue != 0 {
		s = *flagValue
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("seed %d: rerun with -run '^%s$' -seed=%d", s, t.Name(), s)
		}
	})
	return s
}

// Each yields *flagValue alone when it is set, else each of defs, for
// tests that loop over fixed seeds; a failing t prints the seed the loop
// had reached (the one to rerun with), once.
func Each(t testing.TB, flagValue *uint64, defs []uint64) iter.Seq[uint64] {
	t.Helper()
	return func(yield func(uint64) bool) {
		list := defs
		if flagValue != nil && *flagValue != 0 {
			list = []uint64{*flagValue}
		}
		var cur uint64
		started := false
		t.Cleanup(func() {
			if started && t.Failed() {
				t.Logf("seed %d: rerun with -run '^%s$' -seed=%d", cur, t.Name(), cur)
			}
		})
		for _, s := range list {
			cur, started = s, true
			if !yield(s) {
				return
			}
		}
	}
}
