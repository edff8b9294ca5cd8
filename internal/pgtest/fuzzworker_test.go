package pgtest

import "testing"

// TestFuzzWorker: only the worker processes of `go test -fuzz` skip the
// cluster; the coordinator and plain test runs get one.
func TestFuzzWorker(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"x.test", "-test.fuzzworker", "-test.paniconexit0"}, true},
		{[]string{"x.test", "-test.fuzzworker=true"}, true},
		{[]string{"x.test", "-test.fuzz=^FuzzX$", "-test.run=^$"}, false},
		{[]string{"x.test", "-test.run=TestFuzzworker"}, false},
		{nil, false},
	} {
		if got := fuzzWorker(c.args); got != c.want {
			t.Errorf("fuzzWorker(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
