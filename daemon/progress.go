// Copy progress: recorded for status and metrics, rendered on a terminal or
// logged.

package daemon

import (
	"fmt"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/sidecar-dev/sidecar/replication"
)

// copyProgress records progress for status and metrics, and renders it:
// a line per table on a terminal, periodic log lines otherwise.
func (d *daemon) copyProgress(p replication.CopyProgress) {
	d.mu.Lock()
	if d.progress == nil {
		d.progress = map[string]replication.CopyProgress{}
	}
	prev, seen := d.progress[p.Table]
	d.progress[p.Table] = p
	left, hasETA := d.observeETA(p)
	done := 0
	for _, q := range d.progress {
		if q.Done {
			done++
		}
	}
	total := len(d.progress)
	d.mu.Unlock()
	d.met.CopyRows.WithLabelValues(p.Table).Set(float64(p.Rows))
	d.met.CopyTablesDone.Set(float64(done))
	d.met.CopyTables.Set(float64(max(total, len(d.names()))))

	rate := 0.0
	if s := p.Elapsed.Seconds(); s > 0 {
		rate = float64(p.Rows) / s
	}
	eta := ""
	if hasETA && !p.Done {
		eta = left.Round(time.Second).String()
	}
	if w := d.opts.Progress; w != nil && isTerminal(w) {
		state := "copying"
		switch {
		case p.Done:
			state = "done"
		case p.Building:
			state = fmt.Sprintf("building %d/%d", p.Built, p.Rows)
		}
		fmt.Fprintf(w, "\r%-40s %12d rows %10.0f rows/s  ranges %d/%d  %s %s\x1b[K", p.Table, p.Rows, rate, p.RangesDone, p.Ranges, state, eta)
		if p.Done {
			fmt.Fprintln(w)
		}
		return
	}
	if p.Done || !seen || p.Elapsed-prev.Elapsed >= d.opts.ProgressEvery || time.Duration(p.Elapsed)/d.opts.ProgressEvery != time.Duration(prev.Elapsed)/d.opts.ProgressEvery {
		d.log.Info("copy progress", "table", p.Table, "rows", p.Rows, "rows_per_s", int64(rate), "ranges_done", p.RangesDone, "ranges", p.Ranges, "estimated_rows", p.EstimatedRows, "building", p.Building, "built", p.Built, "done", p.Done, "eta", eta)
	}
}

func isTerminal(w any) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && isatty.IsTerminal(f.Fd())
}
