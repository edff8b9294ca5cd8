package exec

import "context"

// RunCountingBuilds is p.Run, also returning how many hash join tables
// the statement built.
func RunCountingBuilds(p *Prepared, ctx context.Context, src Source, opts Options, emit func(*Batch) error) (int, error) {
	e, err := p.run(ctx, src, opts, emit)
	if e == nil {
		return 0, err
	}
	return e.hashBuilds, err
}
