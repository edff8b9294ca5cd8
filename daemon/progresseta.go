// Copy ETA per table, for the progress line, status and metrics.

package daemon

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sidecar-dev/sidecar/replication"
)

// copyETAs holds one replication.CopyETA per table being copied (under
// daemon.mu) and the series that export them.
type copyETAs struct {
	byTable map[string]*replication.CopyETA
	// left is sidecar_copy_eta_seconds{table} (-1: no estimate yet);
	// estimated is sidecar_copy_rows_estimated{table}, the planner's row
	// estimate the ETA counts down from (0: none).
	left, estimated *prometheus.GaugeVec
	// bytes is sidecar_copy_bytes{table}, the COPY text received.
	bytes *prometheus.GaugeVec
}

// observeETA records p in its table's estimator and returns the time
// left; ok is false when there is no estimate yet. d.mu must be held.
func (d *daemon) observeETA(p replication.CopyProgress) (time.Duration, bool) {
	e := &d.eta
	if e.byTable == nil {
		e.byTable = map[string]*replication.CopyETA{}
		e.left = registerGaugeVec(d.met.Registry, prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sidecar_copy_eta_seconds",
			Help: "Estimated seconds left of the current copy or resync of a table, its build included (estimated rows left at the rate of the last 30 s, then the build of every row); -1 while no estimate, 0 when done."}, []string{"table"}))
		e.estimated = registerGaugeVec(d.met.Registry, prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sidecar_copy_rows_estimated",
			Help: "The planner's row estimate (pg_class.reltuples) of a table being copied, taken in the copy's snapshot; 0 when never analyzed."}, []string{"table"}))
		e.bytes = registerGaugeVec(d.met.Registry, prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sidecar_copy_bytes",
			Help: "COPY text bytes received so far by the current copy or resync of a table."}, []string{"table"}))
	}
	est := e.byTable[p.Table]
	if est == nil {
		est = &replication.CopyETA{}
		e.byTable[p.Table] = est
	}
	left, ok := est.Observe(p)
	v := -1.0
	if ok {
		v = left.Seconds()
	}
	e.left.WithLabelValues(p.Table).Set(v)
	e.estimated.WithLabelValues(p.Table).Set(float64(p.EstimatedRows))
	e.bytes.WithLabelValues(p.Table).Set(float64(p.Bytes))
	return left, ok
}

// lastETA is the table's latest estimate. d.mu must be held.
func (d *daemon) lastETA(table string) (time.Duration, bool) {
	if e := d.eta.byTable[table]; e != nil {
		return e.Last()
	}
	return 0, false
}

// registerGaugeVec registers g on reg, or returns the vector already
// registered under its name.
func registerGaugeVec(reg prometheus.Registerer, g *prometheus.GaugeVec) *prometheus.GaugeVec {
	err := reg.Register(g)
	var dup prometheus.AlreadyRegisteredError
	if errors.As(err, &dup) {
		if existing, ok := dup.ExistingCollector.(*prometheus.GaugeVec); ok {
			return existing
		}
	}
	return g
}
