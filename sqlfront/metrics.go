package sqlfront

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// frontMetrics are the SQL front end's Prometheus metrics (all named
// sidecar_sql_*), registered on Options.Metrics when it is set.
type frontMetrics struct {
	connections prometheus.Gauge
	accepted    prometheus.Counter
	refused     *prometheus.CounterVec
	statements  *prometheus.CounterVec
	latency     prometheus.Histogram
	rows        prometheus.Counter
}

func newFrontMetrics(s *Server) *frontMetrics {
	m := &frontMetrics{
		connections: prometheus.NewGauge(prometheus.GaugeOpts{Name: "sidecar_sql_connections", Help: "Open SQL sessions (after startup and authentication)."}),
		accepted:    prometheus.NewCounter(prometheus.CounterOpts{Name: "sidecar_sql_connections_accepted_total", Help: "SQL connections accepted (before startup)."}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sidecar_sql_connections_refused_total",
			Help: "SQL connections ended before a session by reason: auth (28P01), too_many (53300), protocol (08P01 at startup)."}, []string{"reason"}),
		statements: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sidecar_sql_statements_total",
			Help: "SQL statements run, by outcome (ok, error) and SQLSTATE class of the error (the first two characters; \"\" when ok)."}, []string{"outcome", "class"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "sidecar_sql_statement_seconds", Help: "Latency of SQL statements, from the message to the reply.",
			Buckets: prometheus.ExponentialBuckets(0.00005, 2, 20)}),
		rows: prometheus.NewCounter(prometheus.CounterOpts{Name: "sidecar_sql_rows_returned_total", Help: "Rows sent to SQL clients."}),
	}
	if reg := s.opts.Metrics; reg != nil {
		runs := func(path string, f func() float64) prometheus.Collector {
			return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sidecar_sql_selects_total", Help: "SELECTs answered, by where they ran: engine (query/), direct (stored rows sent as they are), evaluator (the row-at-a-time evaluator).",
				ConstLabels: prometheus.Labels{"path": path}}, f)
		}
		for _, c := range []prometheus.Collector{m.connections, m.accepted, m.refused, m.statements, m.latency, m.rows,
			runs("engine", func() float64 { return float64(s.engineRuns.Load()) }),
			runs("direct", func() float64 { return float64(s.directRuns.Load()) }),
			runs("evaluator", func() float64 {
				return float64(max(0, s.selectRuns.Load()-s.engineRuns.Load()-s.directRuns.Load()))
			})} {
			if err := reg.Register(c); err != nil {
				// A second server on one registry (a restart in the same
				// process): the first one's metrics stay exported.
				s.log.Warn("sql: metric not registered", "err", err)
			}
		}
	}
	return m
}

// statement records one statement's outcome and latency.
func (m *frontMetrics) statement(start time.Time, err error) {
	m.latency.Observe(time.Since(start).Seconds())
	if err == nil {
		m.statements.WithLabelValues("ok", "").Inc()
		return
	}
	code := toError(err).Code
	if len(code) >= 2 {
		code = code[:2]
	}
	m.statements.WithLabelValues("error", code).Inc()
}
