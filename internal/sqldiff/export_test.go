package sqldiff

// SetBeforeMarkerLSN makes s run f between the marker's commit and the
// read of the insert LSN in its next waits (follow_test.go).
func SetBeforeMarkerLSN(s *Sidecar, f func()) { s.beforeMarkerLSN = f }
