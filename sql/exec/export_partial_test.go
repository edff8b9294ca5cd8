package exec

// SetPartialGroups sets the most groups p's workers hold (a test runs
// the workers' full path on a few rows).
func SetPartialGroups(p *PartialAgg, n int) { p.limit = n }
