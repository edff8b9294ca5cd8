// Package racedetector tells a test whether it runs under the race
// detector, for sizes that are there for speed only: CI runs the
// concurrent packages under -race alone (.ci/run's race list), where
// each step is several times slower, so a test may run fewer rounds of a
// random model there when the plain run still runs them all, or a
// smaller input where the input's size only makes a statement long
// enough to watch. Assertions never change with it.
package racedetector
