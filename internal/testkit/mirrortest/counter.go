package mirrortest

import (
	"context"
	"fmt"
	"strconv"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// CounterVersions walks every version of a stopped sidecar's data
// directory that touched table, a one-row counter (key "1", the count in
// column col) that every transaction of a workload bumps by one, and
// checks that the count goes up by exactly one from each such version to
// the next: a version missing or doubled breaks the run. It returns the
// number of versions checked and the last count.
func CounterVersions(t TB, dataDir, table string, col int) (versions int, last int64, err error) {
	return CounterVersionsSampled(t, dataDir, table, col, 0)
}

// CounterVersionsSampled is CounterVersions reading the counter at
// about samples versions (0: all), always the first and the last, where
// reading every one is slow (each read resolves a tree at its version).
// The check stays exact for the count: the i-th version touching table
// must hold first+i, so one version missing or doubled anywhere before a
// sampled one shows there.
func CounterVersionsSampled(t TB, dataDir, table string, col int, samples int) (versions int, last int64, err error) {
	t.Helper()
	ctx := context.Background()
	_, m, close := Open(t, dataDir)
	defer close()
	all, err := m.Versions(0, m.Durable(), 0)
	if err != nil {
		return 0, 0, err
	}
	var vs []mirror.Version
	for _, v := range all {
		for _, tc := range v.Tables {
			if tc.Table == table {
				vs = append(vs, v)
				break
			}
		}
	}
	step := 1
	if samples > 0 && len(vs) > samples {
		step = len(vs) / samples
	}
	prev, prevAt := int64(-1), -1
	for i, v := range vs {
		if i%step != 0 && i != len(vs)-1 {
			continue
		}
		val, ok, err := m.Get(ctx, table, []string{"1"}, v.EndLSN)
		if err != nil || !ok {
			return versions, prev, fmt.Errorf("counter at version %s: found %v, %v", v.EndLSN, ok, err)
		}
		text, _, err := rowenc.Column(val, col)
		if err != nil {
			return versions, prev, fmt.Errorf("counter at version %s: %w", v.EndLSN, err)
		}
		k, err := strconv.ParseInt(string(text), 10, 64)
		if err != nil {
			return versions, prev, fmt.Errorf("counter at version %s: %q: %w", v.EndLSN, text, err)
		}
		if prev >= 0 && k != prev+int64(i-prevAt) {
			return versions, prev, fmt.Errorf("version %s (the %d-th touching %s) has counter %d, %d versions after counter %d: a version is missing or doubled", v.EndLSN, i, table, k, i-prevAt, prev)
		}
		prev, prevAt = k, i
		versions++
	}
	return len(vs), prev, nil
}
