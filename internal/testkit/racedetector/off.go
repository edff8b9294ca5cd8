//go:build !race

package racedetector

// Enabled is true in builds with the race detector (-race).
const Enabled = false
