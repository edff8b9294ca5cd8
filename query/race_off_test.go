//go:build !race

package query

// raceDetector: see race_on_test.go.
const raceDetector = false
