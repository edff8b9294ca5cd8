package query

// rounds is n, or few under the race detector (raceDetector), for the
// random model tests whose every round the detector makes about ten times
// slower: CI's race run still takes their concurrent paths.
func rounds(n, few int) int {
	if raceDetector {
		return few
	}
	return n
}
