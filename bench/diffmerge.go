package bench

import "context"

// diffs times Diff(base, batch tree) for each pattern.
func (r *sizeRun) diffs(ctx context.Context) error {
	for _, pat := range []string{patAppend, patClustered, patRandom} {
		r.skip("diff/"+pat, errNotYet)
	}
	return nil
}

// merges times the three-way merge of two disjoint 10k insert batches.
func (r *sizeRun) merges(ctx context.Context) error {
	for _, pat := range []string{patAppend, patClustered, patRandom} {
		r.skip("merge/"+pat, errNotYet)
	}
	return nil
}
