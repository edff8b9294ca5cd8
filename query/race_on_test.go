//go:build race

package query

// raceDetector is whether the tests run under the race detector (CI's
// race list): the random model tests then run a few of their rounds, the
// race detector making each about ten times slower.
const raceDetector = true
