package verify

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Last is the latest periodic verification, for `sidecar status` (the
// daemon embeds it in its Status as "verify").
type Last struct {
	// At is when the run ended; Interval the configured period.
	At       time.Time `json:"at"`
	Interval string    `json:"interval"`
	// LSN is the pinned position, empty when the run failed before
	// pinning or before the mirror caught up.
	LSN    string `json:"lsn,omitempty"`
	Result string `json:"result"`
	Error  string `json:"error,omitempty"`
	// Tables are the per-table results (differing rows omitted; run
	// `sidecar verify` to see them).
	Tables []LastTable `json:"tables,omitempty"`
}

// LastTable is one table's line in Last.
type LastTable struct {
	Table       string `json:"table"`
	Result      string `json:"result"`
	Differences int    `json:"differences"`
	Error       string `json:"error,omitempty"`
}

// Periodic runs a verification every Interval until its context ends,
// keeps the last outcome for status, and sets the per-table gauge
// (sidecar_verify_result{table}: 1 equal, 0 differences, -1 could not
// verify). Create it with its fields set, start Run in a goroutine the
// daemon owns, and read Last from any goroutine.
type Periodic struct {
	// Interval is the period; Run returns at once when it is not positive.
	Interval time.Duration
	// Verify runs one verification of every followed table (normally
	// Runner.Run with no names).
	Verify func(ctx context.Context) (*Report, error)
	// Tables lists the followed tables, so a run that fails before any
	// table is compared marks each of them -1. Optional.
	Tables func() []string
	// Gauge is metrics.Set.VerifyResult; nil sets no metric.
	Gauge *prometheus.GaugeVec
	// Metrics, if set, get every run's outcome (sidecar_verify_last_*).
	Metrics *Metrics
	Logger  *slog.Logger

	mu   sync.Mutex
	last *Last
}

// Run verifies every Interval (the first run one Interval after start)
// until ctx ends; it returns nil then. A run is bounded by the Interval
// so runs never overlap.
func (p *Periodic) Run(ctx context.Context) error {
	if p.Interval <= 0 {
		return nil
	}
	log := p.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tick := time.NewTicker(p.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		p.runOnce(ctx, log)
	}
}

// runOnce performs one verification and records it.
func (p *Periodic) runOnce(ctx context.Context, log *slog.Logger) {
	runCtx, cancel := context.WithTimeout(ctx, p.Interval)
	rep, err := p.Verify(runCtx)
	cancel()
	if ctx.Err() != nil {
		return // shutting down: not a verification failure
	}
	last := &Last{At: time.Now().UTC(), Interval: p.Interval.String()}
	if err != nil {
		last.Result, last.Error = ResultError, err.Error()
		log.Warn("periodic verify failed", "err", err)
		if p.Tables != nil {
			for _, t := range p.Tables() {
				last.Tables = append(last.Tables, LastTable{Table: t, Result: ResultError})
			}
		}
	} else {
		last.LSN, last.Result = rep.LSN, rep.Result
		for _, t := range rep.Tables {
			last.Tables = append(last.Tables, LastTable{Table: t.Table, Result: t.Result, Differences: t.Differences, Error: t.Error})
		}
		lvl := slog.LevelInfo
		if rep.Result != ResultEqual {
			lvl = slog.LevelWarn
		}
		log.Log(ctx, lvl, "periodic verify", "lsn", rep.LSN, "result", rep.Result, "seconds", rep.Seconds)
	}
	if p.Gauge != nil {
		for _, t := range last.Tables {
			p.Gauge.WithLabelValues(t.Table).Set(GaugeValue(t.Result))
		}
	}
	if p.Metrics != nil {
		p.Metrics.record(last)
	}
	p.mu.Lock()
	p.last = last
	p.mu.Unlock()
}

// Last returns the latest outcome, or nil before the first run ends.
func (p *Periodic) Last() *Last {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last == nil {
		return nil
	}
	c := *p.last
	return &c
}

// GaugeValue maps a result to sidecar_verify_result: 1 equal, 0
// differences, -1 could not verify.
func GaugeValue(result string) float64 {
	switch result {
	case ResultEqual:
		return 1
	case ResultDifferences:
		return 0
	}
	return -1
}
