package metrics

import "github.com/prometheus/client_golang/prometheus"

// PageCache is the HEAD page file and its page cache (heap.PageFile) as
// /metrics shows them: counters since the daemon started, and sizes now.
type PageCache struct {
	Hits, Misses, Evictions, Promotions int64
	CacheBytes, CacheLimit              int64
	FileBytes, FileLiveBytes            int64
	Reads, Writes, ReadAhead            int64
	Corrupt, WriteErrors                int64
}

var (
	pcOpsDesc = prometheus.NewDesc("sidecar_head_page_cache_total",
		"HEAD page cache events: hit, miss, eviction, promotion (a page read again after leaving the first-read queue: hot).", []string{"event"}, nil)
	pcBytesDesc = prometheus.NewDesc("sidecar_head_page_cache_bytes",
		"Decoded cold pages the HEAD page cache holds (state=used) and its bound (state=limit, a share of heap.memory).", []string{"state"}, nil)
	pfOpsDesc = prometheus.NewDesc("sidecar_head_page_file_total",
		"HEAD page file operations: read (pread of a record), write, readahead (records hinted ahead of a sequential scan), corrupt (records failing their checks), write_error.", []string{"op"}, nil)
	pfBytesDesc = prometheus.NewDesc("sidecar_head_page_file_bytes",
		"HEAD page file size (state=file) and the bytes of records in use (state=live).", []string{"state"}, nil)
)

// pageCacheCollector reads the page cache at each scrape.
type pageCacheCollector struct{ read func() PageCache }

func (c pageCacheCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- pcOpsDesc
	ch <- pcBytesDesc
	ch <- pfOpsDesc
	ch <- pfBytesDesc
}

func (c pageCacheCollector) Collect(ch chan<- prometheus.Metric) {
	p := c.read()
	for _, e := range []struct {
		d     *prometheus.Desc
		t     prometheus.ValueType
		v     int64
		label string
	}{
		{pcOpsDesc, prometheus.CounterValue, p.Hits, "hit"},
		{pcOpsDesc, prometheus.CounterValue, p.Misses, "miss"},
		{pcOpsDesc, prometheus.CounterValue, p.Evictions, "eviction"},
		{pcOpsDesc, prometheus.CounterValue, p.Promotions, "promotion"},
		{pcBytesDesc, prometheus.GaugeValue, p.CacheBytes, "used"},
		{pcBytesDesc, prometheus.GaugeValue, p.CacheLimit, "limit"},
		{pfOpsDesc, prometheus.CounterValue, p.Reads, "read"},
		{pfOpsDesc, prometheus.CounterValue, p.Writes, "write"},
		{pfOpsDesc, prometheus.CounterValue, p.ReadAhead, "readahead"},
		{pfOpsDesc, prometheus.CounterValue, p.Corrupt, "corrupt"},
		{pfOpsDesc, prometheus.CounterValue, p.WriteErrors, "write_error"},
		{pfBytesDesc, prometheus.GaugeValue, p.FileBytes, "file"},
		{pfBytesDesc, prometheus.GaugeValue, p.FileLiveBytes, "live"},
	} {
		ch <- prometheus.MustNewConstMetric(e.d, e.t, float64(e.v), e.label)
	}
}

// RegisterPageCache adds the sidecar_head_page_cache_* and
// sidecar_head_page_file_* metrics, read from read at each scrape. A
// second call (a daemon run again on the same Set) replaces the first.
func (s *Set) RegisterPageCache(read func() PageCache) {
	s.Registry.Unregister(pageCacheCollector{})
	s.Registry.MustRegister(pageCacheCollector{read: read})
}
