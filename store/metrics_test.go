package store

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestCollectors(t *testing.T) {
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
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(NewStatsCollector(s.Stats, prometheus.Labels{"store": "test"}), NewBadgerCollector())
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			v := m.GetCounter().GetValue() + m.GetGauge().GetValue() + m.GetUntyped().GetValue()
			got[mf.GetName()] += v
		}
	}
	st := s.Stats()
	for name, want := range map[string]int64{
		"sidecar_store_reads_total":                st.Reads,
		"sidecar_store_nodes_written_total":        st.NodesWritten,
		"sidecar_store_written_stored_bytes_total": st.BytesStored,
		"sidecar_store_cache_capacity_bytes":       st.CacheCapacity,
	} {
		if got[name] != float64(want) || want == 0 {
			t.Errorf("%s = %v, want %d (non-zero)", name, got[name], want)
		}
	}
	if got["sidecar_badger_put_num_user"] < 20 || got["sidecar_badger_write_bytes_vlog"] == 0 {
		t.Errorf("badger metrics not bridged: put_num_user %v, write_bytes_vlog %v",
			got["sidecar_badger_put_num_user"], got["sidecar_badger_write_bytes_vlog"])
	}
}
