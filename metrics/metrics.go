// Package metrics defines the daemon's Prometheus metrics (all named
// sidecar_*) on a registry of their own, and bridges Badger's expvar
// counters into it without re-counting them.
package metrics

import (
	"expvar"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Set is the daemon's metrics. Components update the fields; /metrics
// serves Registry. A Set is not global: each daemon (and each test) makes
// its own.
type Set struct {
	Registry *prometheus.Registry

	LagBytes   prometheus.Gauge
	LagSeconds prometheus.Gauge
	// DurableLSN is the last commit end LSN made durable, as a number.
	DurableLSN  prometheus.Gauge
	ReceivedLSN prometheus.Gauge
	Connected   prometheus.Gauge
	Reconnects  prometheus.Counter
	// RowsApplied counts applied row changes by kind (insert, update,
	// delete, truncate).
	RowsApplied *prometheus.CounterVec
	// TxnsApplied counts applied transactions (streamed or not).
	TxnsApplied *prometheus.CounterVec
	// CopyRows and CopyTablesDone track the initial copy and resyncs, per table.
	CopyRows       *prometheus.GaugeVec
	CopyTablesDone prometheus.Gauge
	CopyTables     prometheus.Gauge
	// ApplyBatchSeconds is the latency of a group flush (tree mutation +
	// node flush + catalog commit + sync).
	ApplyBatchSeconds prometheus.Histogram
	// CommitSyncSeconds is the latency of making one batch of commits durable.
	CommitSyncSeconds prometheus.Histogram
	// Phase is 1 for the current phase label (copying, streaming, resyncing).
	Phase *prometheus.GaugeVec
	// VerifyResult is the last periodic verification per table: 1 equal,
	// 0 differences, -1 could not verify.
	VerifyResult *prometheus.GaugeVec
	// GCRuns counts garbage collections by result (ok, error);
	// GCDeletedNodes the nodes they deleted; GCExpiredVersions the
	// versions retention expired.
	GCRuns            *prometheus.CounterVec
	GCDeletedNodes    prometheus.Counter
	GCExpiredVersions prometheus.Counter
	// GCLiveNodes and DataDirBytes are as of the last collection.
	GCLiveNodes  prometheus.Gauge
	DataDirBytes prometheus.Gauge
	// HistoryHorizonLSN is the oldest retained version's end LSN (0:
	// nothing expired yet).
	HistoryHorizonLSN prometheus.Gauge
}

// New returns a Set registered on a new registry, with the Go and process
// collectors and Badger's expvar metrics bridged.
func New() *Set {
	r := prometheus.NewRegistry()
	s := &Set{
		Registry:       r,
		LagBytes:       prometheus.NewGauge(prometheus.GaugeOpts{Name: "sidecar_lag_bytes", Help: "WAL bytes between the server's current position and the durable LSN."}),
		LagSeconds:     prometheus.NewGauge(prometheus.GaugeOpts{Name: "sidecar_lag_seconds", Help: "Seconds since the commit time of the last applied transaction, while behind; 0 when caught up."}),
		DurableLSN:     prometheus.NewGauge(prometheus.GaugeOpts{Name: "sidecar_durable_lsn", Help: "Commit end LSN durably stored and acknowledged, as a number."}),
		ReceivedLSN:    prometheus.NewGauge(prometheus.GaugeOpts{Name: "sidecar_received_lsn", Help: "End LSN of the last transaction received, as a number."}),
		Connected:      prometheus.NewGauge(prometheus.GaugeOpts{Name: "sidecar_replication_connected", Help: "1 while the replication connection is up."}),
		Reconnects:     prometheus.NewCounter(prometheus.CounterOpts{Name: "sidecar_replication_reconnects_total", Help: "Replication reconnects after a connection error."}),
		RowsApplied:    prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sidecar_rows_applied_total", Help: "Row changes applied to the mirror, by kind."}, []string{"kind"}),
		TxnsApplied:    prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sidecar_transactions_applied_total", Help: "Transactions applied to the mirror, by whether they were streamed in progress."}, []string{"streamed"}),
		CopyRows:       prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sidecar_copy_rows", Help: "Rows copied so far by the current initial copy or resync, per table."}, []string{"table"}),
		CopyTablesDone: prometheus.NewGauge(prometheus.GaugeOpts{Name: "sidecar_copy_tables_done", Help: "Tables completely copied in the current copy."}),
		CopyTables:     prometheus.NewGauge(prometheus.GaugeOpts{Name: "sidecar_copy_tables", Help: "Tables in the current copy."}),
		ApplyBatchSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "sidecar_apply_batch_seconds", Help: "Latency of persisting a group of commits as new tree roots.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16)}),
		CommitSyncSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "sidecar_commit_sync_seconds", Help: "Latency of making a batch of commits durable (write + sync).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16)}),
		Phase:             prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sidecar_phase", Help: "1 for the daemon's current phase."}, []string{"phase"}),
		VerifyResult:      prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sidecar_verify_result", Help: "Last periodic verification per table: 1 equal, 0 differences found, -1 could not verify."}, []string{"table"}),
		GCRuns:            prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sidecar_gc_runs_total", Help: "Garbage collections (history.retain applied, unreachable nodes deleted), by result."}, []string{"result"}),
		GCDeletedNodes:    prometheus.NewCounter(prometheus.CounterOpts{Name: "sidecar_gc_deleted_nodes_total", Help: "Tree nodes deleted by garbage collection."}),
		GCExpiredVersions: prometheus.NewCounter(prometheus.CounterOpts{Name: "sidecar_gc_expired_versions_total", Help: "Versions expired by history.retain."}),
		GCLiveNodes:       prometheus.NewGauge(prometheus.GaugeOpts{Name: "sidecar_gc_live_nodes", Help: "Tree nodes reachable from retained versions, tags and branches at the last collection."}),
		DataDirBytes:      prometheus.NewGauge(prometheus.GaugeOpts{Name: "sidecar_data_dir_bytes", Help: "Size of the data directory after the last collection."}),
		HistoryHorizonLSN: prometheus.NewGauge(prometheus.GaugeOpts{Name: "sidecar_history_oldest_lsn", Help: "End LSN of the oldest retained version, as a number (0: nothing expired)."}),
	}
	r.MustRegister(s.LagBytes, s.LagSeconds, s.DurableLSN, s.ReceivedLSN, s.Connected, s.Reconnects,
		s.RowsApplied, s.TxnsApplied, s.CopyRows, s.CopyTablesDone, s.CopyTables,
		s.ApplyBatchSeconds, s.CommitSyncSeconds, s.Phase, s.VerifyResult,
		s.GCRuns, s.GCDeletedNodes, s.GCExpiredVersions, s.GCLiveNodes, s.DataDirBytes, s.HistoryHorizonLSN)
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	r.MustRegister(collectors.NewExpvarCollector(badgerExpvars()))
	return s
}

// SetPhase marks phase as the current one.
func (s *Set) SetPhase(phase string) {
	for _, p := range []string{"starting", "copying", "streaming", "resyncing", "stopping"} {
		v := 0.0
		if p == phase {
			v = 1
		}
		s.Phase.WithLabelValues(p).Set(v)
	}
}

// badgerExpvars maps Badger's expvar variables (badger_*) to sidecar_badger_*
// metrics. Integer vars become gauges of the same value (Badger's are
// cumulative counters or sizes; they are exported as read, not re-counted);
// map vars get one label with the map key.
func badgerExpvars() map[string]*prometheus.Desc {
	m := map[string]*prometheus.Desc{}
	expvar.Do(func(kv expvar.KeyValue) {
		if !strings.HasPrefix(kv.Key, "badger_") {
			return
		}
		name := "sidecar_" + kv.Key
		help := "Badger's expvar " + kv.Key + ", bridged."
		switch kv.Value.(type) {
		case *expvar.Map:
			m[kv.Key] = prometheus.NewDesc(name, help, []string{"key"}, nil)
		case *expvar.Int, *expvar.Float:
			m[kv.Key] = prometheus.NewDesc(name, help, nil, nil)
		}
	})
	return m
}
