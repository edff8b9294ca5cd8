package query

import "testing"

func BenchmarkEvalIntsLess(b *testing.B) {
	vals := make([]int64, 1024)
	for i := range vals {
		vals[i] = int64(i % 100)
	}
	t := make([]uint64, 16)
	n := &node{op: "<", vals: []Value{{K: vInt, I: 10}}}
	for b.Loop() {
		clear(t)
		evalInts(n, vals, len(vals), t)
	}
}
