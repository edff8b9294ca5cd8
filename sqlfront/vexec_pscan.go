package sqlfront

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/snapshot"
	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/wal"
)

// A full scan of a table's typed pages decodes (and filters, with a late
// filter) on several goroutines: the pages are cut into units of
// pscanUnitPages, which workers take in page order, and the scan's
// goroutine hands on each unit's batches in page order, so the rows, the
// batches' contents and the first error in page order are those of the
// sequential scan. Everything after the scan (joins, aggregation) stays
// on the statement's goroutine, except a hash aggregation reading the
// scan, which aggregates in the workers too (exec.PartialAgg). At most 2
// units per worker are decoded and not yet handed on: the memory is
// bounded by the unit size, not by the table.

const (
	pscanUnitPages = 8  // pages per unit of work
	pscanMinPages  = 32 // smaller tables are scanned on one goroutine
	pscanMaxWorker = 4
)

// pscanWorkers is the number of decoding goroutines (1: sequential).
func pscanWorkers() int { return min(runtime.GOMAXPROCS(0), pscanMaxWorker) }

type pscanResult struct {
	batches []*exec.Batch
	err     error
	done    chan struct{}
	// freed: the unit left no batch (its rows all aggregated in the
	// worker, or filtered out): its worker gave its token back, so the
	// workers go on without waiting for the scan's goroutine (which, on
	// a loaded machine, waits for a CPU at every wake-up).
	freed bool
}

// scanPagesParallel is scanPages over every page on several goroutines;
// done=false: the scan is better run on one (a small table, one CPU, a
// filter calling a volatile function).
func scanPagesParallel(ctx context.Context, p snapshot.Pages, cols []wal.Column, req *exec.ScanRequest, lf *exec.LateFilter, fn func(*exec.Batch) error) (done bool, err error) {
	workers, n := pscanWorkers(), p.Heap.NumPages()
	if workers < 2 || n < pscanMinPages {
		return false, nil
	}
	filters := make([]*exec.LateFilter, workers)
	decs := make([][]colDecoder, workers)
	aggs := make([]*exec.AggWorker, workers)
	for w := range workers {
		if req.Partial != nil {
			// The aggregation reading the scan aggregates in the workers
			// too (exec.PartialAgg).
			if aggs[w], err = req.Partial.Worker(); err != nil {
				return true, err
			}
		}
		if lf != nil {
			f, err := lf.Clone()
			if err != nil || f == nil {
				return false, nil // compiled once already: run as compiled
			}
			filters[w] = f
		}
		if decs[w], err = pageDecoders(cols, req); err != nil {
			return true, err
		}
	}
	raw := rawCols(cols, req)         // vexec_colcmp.go: read only, shared
	rawText := rawTextCols(cols, req) // vexec_topn.go: likewise
	units := make([]pscanResult, (n+pscanUnitPages-1)/pscanUnitPages)
	for u := range units {
		units[u].done = make(chan struct{})
	}
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait() // no worker reads the snapshot once the scan returns
	}()
	var pool *batchPool
	if req.Reuse {
		// The batches of the units decoded ahead, refilled once handed on.
		pool = newBatchPool(len(req.Ords), 16*workers)
	}
	tokens := make(chan struct{}, 2*workers)
	var next atomic.Int64
	for w := range workers {
		wg.Add(1)
		go func(f *exec.LateFilter, decs []colDecoder, agg *exec.AggWorker) {
			defer wg.Done()
			rd := p.Heap.ColReader(req.Ords) // this worker's read buffers
			for {
				select {
				case tokens <- struct{}{}:
				case <-wctx.Done():
					return
				}
				u := int(next.Add(1) - 1)
				if u >= len(units) {
					<-tokens
					return
				}
				r := &units[u]
				r.batches, r.err = scanUnit(wctx, p, rd, u, req, decs, raw, rawText, f, pool, agg)
				if r.err == nil && len(r.batches) == 0 {
					r.freed = true
					<-tokens // nothing held for the reader
				}
				close(r.done)
			}
		}(filters[w], decs[w], aggs[w])
	}
	for u := range units {
		select {
		case <-units[u].done:
		case <-ctx.Done():
			return true, ctx.Err()
		}
		if !units[u].freed {
			<-tokens
		}
		if err := units[u].err; err != nil {
			return true, err
		}
		for _, b := range units[u].batches {
			if err := ctx.Err(); err != nil {
				return true, err
			}
			if err := fn(b); err != nil {
				return true, err
			}
			pool.put(b) // nil pool: fn keeps it
		}
		units[u].batches = nil
	}
	return true, nil
}

// scanUnit decodes unit u's pages into batches taken from pool (a panic
// of the decoding, which would end the process on a worker goroutine, is
// its error). With agg, the batches are aggregated on the worker: only
// those agg leaves rows in are handed on.
func scanUnit(ctx context.Context, p snapshot.Pages, rd *heap.ColReader, u int, req *exec.ScanRequest, decs []colDecoder, raw, rawText []bool, f *exec.LateFilter, pool *batchPool, agg *exec.AggWorker) (out []*exec.Batch, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("scan %s: %v", req.Table.Name, r)
		}
	}()
	ch := newPageChunker(ctx, req, decs, f, func(b *exec.Batch) error {
		if agg != nil {
			if err := agg.Add(b); err != nil {
				return err
			}
			if b.N == 0 {
				pool.put(b) // nil pool: dropped
				return nil
			}
		}
		out = append(out, b)
		return nil
	})
	ch.pool = pool // handed back by the scan's goroutine once read
	ch.raw, ch.rawText = raw, rawText
	if agg != nil || req.Small != nil {
		ch.small = smallScanCols(req, raw, f) // vexec_typed.go
	}
	from := u * pscanUnitPages
	if err := ch.pages(p.Heap, rd, from, min(from+pscanUnitPages, p.Heap.NumPages())); err != nil {
		return nil, err
	}
	if err := ch.end(); err != nil {
		return nil, err
	}
	return out, nil
}
