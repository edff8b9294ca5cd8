package metrics

import "github.com/prometheus/client_golang/prometheus"

// MemoryPart is one part of the daemon's memory budget (memory.limit) as
// /metrics shows it.
type MemoryPart struct {
	// Part names it (heap, node_cache, badger, query, ingest, ...); Key
	// is the config key that sizes it ("" for what no key bounds).
	Part, Key string
	// Budget is its configured bound in bytes (0: none).
	Budget int64
	// Used is what it holds now, in bytes (negative: not measured).
	Used int64
}

var (
	memBudgetDesc = prometheus.NewDesc("sidecar_memory_budget_bytes",
		"Configured bound of each part of the memory budget (part=limit is memory.limit, the whole process).", []string{"part", "key"}, nil)
	memUsedDesc = prometheus.NewDesc("sidecar_memory_used_bytes",
		"Memory each part holds now, where measured (part=limit is the process's resident set).", []string{"part"}, nil)
)

// memoryCollector reads the parts at each scrape.
type memoryCollector struct{ parts func() []MemoryPart }

func (c memoryCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- memBudgetDesc
	ch <- memUsedDesc
}

func (c memoryCollector) Collect(ch chan<- prometheus.Metric) {
	for _, p := range c.parts() {
		if p.Budget > 0 {
			ch <- prometheus.MustNewConstMetric(memBudgetDesc, prometheus.GaugeValue, float64(p.Budget), p.Part, p.Key)
		}
		if p.Used >= 0 {
			ch <- prometheus.MustNewConstMetric(memUsedDesc, prometheus.GaugeValue, float64(p.Used), p.Part)
		}
	}
}

// RegisterMemory adds sidecar_memory_budget_bytes{part,key} and
// sidecar_memory_used_bytes{part}, read from parts at each scrape.
// A second call (a daemon run again on the same Set) replaces the first.
func (s *Set) RegisterMemory(parts func() []MemoryPart) {
	s.Registry.Unregister(memoryCollector{})
	s.Registry.MustRegister(memoryCollector{parts: parts})
}
