package mirror

import "github.com/sidecar-dev/sidecar/internal/seed"

// ReaderEpoch returns how many times WaitReaders has begun waiting: tests
// in mirror_test use it to know that a WaitReaders call running in another
// goroutine has taken its place (reads registered after that are not
// waited for).
func ReaderEpoch(m *Mirror) uint64 {
	m.readers.mu.Lock()
	defer m.readers.mu.Unlock()
	return m.readers.epoch
}

// seedFlag replays a failing random test: go test ./mirror -run X -seed N.
var seedFlag = seed.Flag()

// SeedFlag is seedFlag for the tests in mirror_test (one -seed flag per
// test binary: a second definition panics).
var SeedFlag = seedFlag
