package store

import (
	"testing"

	"github.com/sidecar-dev/sidecar/metrics"
)

// TestBadgerMetricsBridged: writes through a node store show in the one
// bridge of Badger's expvar counters (metrics.New's sidecar_badger_*).
func TestBadgerMetricsBridged(t *testing.T) {
	db := openTest(t, Options{})
	s := NewNodeStore(db, testCodec{})
	hs, _ := putNodes(t, s, newLeafGen(51, false), 20)
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.ClearCache()
	if _, err := s.GetMany(t.Context(), hs); err != nil {
		t.Fatal(err)
	}
	mfs, err := metrics.New().Registry.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			got[mf.GetName()] += m.GetCounter().GetValue() + m.GetGauge().GetValue() + m.GetUntyped().GetValue()
		}
	}
	if got["sidecar_badger_put_num_user"] < 20 || got["sidecar_badger_write_bytes_vlog"] == 0 {
		t.Errorf("badger metrics not bridged: put_num_user %v, write_bytes_vlog %v",
			got["sidecar_badger_put_num_user"], got["sidecar_badger_write_bytes_vlog"])
	}
}
