package verify

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the periodic verification's outcome as Prometheus series,
// for dashboards and the "verify found differences" alert:
//
//	sidecar_verify_last_timestamp             unix seconds the last run ended
//	sidecar_verify_last_result{table}         1 equal, 0 differences, -1 could not verify
//	sidecar_verify_last_differing_rows{table} rows that differed (0 when equal or not verified)
//
// Each run replaces every table's series, so a table no longer followed
// does not keep its old result. Make it with [NewMetrics].
type Metrics struct {
	Timestamp     prometheus.Gauge
	Result        *prometheus.GaugeVec
	DifferingRows *prometheus.GaugeVec
}

// NewMetrics registers the verify series on reg. When reg already holds
// them (a daemon started twice on one registry), the registered ones are
// reused.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		Timestamp: prometheus.NewGauge(prometheus.GaugeOpts{Name: "sidecar_verify_last_timestamp",
			Help: "Unix time (seconds) the last periodic verification ended; 0 before the first."}),
		Result: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sidecar_verify_last_result",
			Help: "Last periodic verification per table: 1 equal, 0 differences found, -1 could not verify."}, []string{"table"}),
		DifferingRows: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sidecar_verify_last_differing_rows",
			Help: "Rows that differed between PostgreSQL and the mirror in the last periodic verification, per table."}, []string{"table"}),
	}
	if err := register(reg, &m.Timestamp); err != nil {
		return nil, err
	}
	if err := register(reg, &m.Result); err != nil {
		return nil, err
	}
	if err := register(reg, &m.DifferingRows); err != nil {
		return nil, err
	}
	return m, nil
}

// register registers *c on reg, or points *c at the collector already
// registered under its name.
func register[C prometheus.Collector](reg prometheus.Registerer, c *C) error {
	err := reg.Register(*c)
	var dup prometheus.AlreadyRegisteredError
	if errors.As(err, &dup) {
		if existing, ok := dup.ExistingCollector.(C); ok {
			*c = existing
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("register verify metrics: %w", err)
	}
	return nil
}

// record sets the series from one run's outcome.
func (m *Metrics) record(last *Last) {
	m.Timestamp.Set(float64(last.At.UnixNano()) / 1e9)
	m.Result.Reset()
	m.DifferingRows.Reset()
	for _, t := range last.Tables {
		m.Result.WithLabelValues(t.Table).Set(GaugeValue(t.Result))
		m.DifferingRows.WithLabelValues(t.Table).Set(float64(t.Differences))
	}
}
