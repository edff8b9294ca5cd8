package store

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// statsCollector exports a NodeStore's Stats. It reads the counters the
// store keeps anyway at scrape time: nothing is counted twice.
type statsCollector struct {
	stats func() Stats
	descs []statDesc
}

type statDesc struct {
	desc  *prometheus.Desc
	kind  prometheus.ValueType
	value func(Stats) int64
}

// NewStatsCollector returns a Prometheus collector of a node store's Stats
// (pass s.Stats), as sidecar_store_* metrics with constant labels (e.g.
// {"store": "prolly"}) to tell several stores apart.
func NewStatsCollector(stats func() Stats, labels prometheus.Labels) prometheus.Collector {
	c := &statsCollector{stats: stats}
	add := func(name, help string, kind prometheus.ValueType, value func(Stats) int64) {
		c.descs = append(c.descs, statDesc{
			desc:  prometheus.NewDesc("sidecar_store_"+name, help, nil, labels),
			kind:  kind,
			value: value,
		})
	}
	counter, gauge := prometheus.CounterValue, prometheus.GaugeValue
	add("cache_hits_total", "Node reads served by the decoded-node cache.", counter, func(s Stats) int64 { return s.CacheHits })
	add("cache_misses_total", "Node reads the cache could not serve.", counter, func(s Stats) int64 { return s.CacheMisses })
	add("cache_evictions_total", "Nodes evicted from the cache.", counter, func(s Stats) int64 { return s.CacheEvictions })
	add("cache_bytes", "Bytes held by the node cache.", gauge, func(s Stats) int64 { return s.CacheBytes })
	add("cache_entries", "Nodes held by the node cache.", gauge, func(s Stats) int64 { return s.CacheEntries })
	add("cache_capacity_bytes", "Bound on cache_bytes.", gauge, func(s Stats) int64 { return s.CacheCapacity })
	add("pending_hits_total", "Node reads served from Puts not yet written.", counter, func(s Stats) int64 { return s.PendingHits })
	add("pending_nodes", "Nodes Put but not yet written.", gauge, func(s Stats) int64 { return s.PendingNodes })
	add("pending_bytes", "Bytes Put but not yet written.", gauge, func(s Stats) int64 { return s.PendingBytes })
	add("reads_total", "Node values read from Badger.", counter, func(s Stats) int64 { return s.Reads })
	add("read_bytes_total", "Stored (compressed) bytes read from Badger.", counter, func(s Stats) int64 { return s.ReadBytes })
	add("corrupt_total", "Node reads that failed verification against their address.", counter, func(s Stats) int64 { return s.Corrupt })
	add("puts_total", "Put calls.", counter, func(s Stats) int64 { return s.Puts })
	add("nodes_written_total", "Nodes written to Badger.", counter, func(s Stats) int64 { return s.NodesWritten })
	add("written_raw_bytes_total", "Node bytes written, before compression.", counter, func(s Stats) int64 { return s.BytesRaw })
	add("written_stored_bytes_total", "Value bytes written, after compression.", counter, func(s Stats) int64 { return s.BytesStored })
	add("batches_total", "Write batches.", counter, func(s Stats) int64 { return s.Batches })
	return c
}

func (c *statsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d.desc
	}
}

func (c *statsCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.stats()
	for _, d := range c.descs {
		ch <- prometheus.MustNewConstMetric(d.desc, d.kind, float64(d.value(st)))
	}
}

// NewBadgerCollector bridges Badger's own metrics (process-wide expvars,
// kept by Badger whatever we do) as sidecar_badger_*. Register it once per
// process, not per DB.
func NewBadgerCollector() prometheus.Collector {
	exports := map[string]*prometheus.Desc{}
	plain := func(name, help string) {
		exports["badger_"+name] = prometheus.NewDesc("sidecar_badger_"+name, help, nil, nil)
	}
	labelled := func(name, label, help string) {
		exports["badger_"+name] = prometheus.NewDesc("sidecar_badger_"+name, help, []string{label}, nil)
	}
	plain("read_num_vlog", "Value-log reads.")
	plain("read_bytes_vlog", "Bytes read from the value log.")
	plain("write_num_vlog", "Value-log writes.")
	plain("write_bytes_vlog", "Bytes written to the value log.")
	plain("read_bytes_lsm", "Bytes read from LSM tables.")
	plain("write_bytes_l0", "Bytes written to level 0 (memtable flushes).")
	plain("get_num_memtable", "Gets answered by a memtable.")
	plain("get_num_user", "Gets issued.")
	plain("put_num_user", "Entries written.")
	plain("write_bytes_user", "Bytes written by users of Badger.")
	plain("compaction_current_num_lsm", "Compactions running.")
	labelled("write_bytes_compaction", "level", "Bytes written by compactions, per level.")
	labelled("get_num_lsm", "level", "LSM table lookups, per level.")
	labelled("hit_num_lsm_bloom_filter", "level", "Lookups a bloom filter avoided, per level.")
	labelled("size_bytes_lsm", "dir", "Size of the LSM tables, per data directory.")
	labelled("size_bytes_vlog", "dir", "Size of the value log, per data directory.")
	return collectors.NewExpvarCollector(exports)
}
