//go:build !race

package heap

// raceEnabled: the race detector is on (allocation counts are not the
// product's: sync.Pool, which s2's encoder uses, drops items on purpose).
const raceEnabled = false
