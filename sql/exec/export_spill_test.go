package exec

import "context"

// RunCountingSpillRuns is p.Run, also returning how many runs the
// statement's DISTINCT aggregates, windows and sorts wrote to temporary files.
func RunCountingSpillRuns(p *Prepared, ctx context.Context, src Source, opts Options, emit func(*Batch) error) (int, error) {
	e, err := p.run(ctx, src, opts, emit)
	if e == nil {
		return 0, err
	}
	return e.spillRuns, err
}
