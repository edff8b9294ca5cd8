package heap

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/rowenc"
)

// TestMidBatchMemCache: the decoded sizes evictMidBatch caches in pages of
// older batches (page.memCache) are never stale. A heap under a memory
// bound it reaches takes insert batches larger than midBatchEvictOps, then
// updates and deletes that copy pages on write and make pages cold; after
// every batch each page that has a cached size has exactly that size.
func TestMidBatchMemCache(t *testing.T) {
	h := mustNew(t, seedSchema, Config{Memory: 8 << 20})
	defer h.Close()
	check := func(step string, wantCached bool) {
		t.Helper()
		v := h.cur.Load()
		cached := 0
		for pid := range v.pages.len() {
			p := v.pages.at(pid)
			if p.memCache == 0 {
				continue
			}
			cached++
			if got := p.memBytes(); p.memCache-1 != got {
				t.Fatalf("%s: page %d caches %d decoded bytes, has %d", step, pid, p.memCache-1, got)
			}
		}
		if cached == 0 && wantCached {
			t.Fatalf("%s: no page has a cached size (evictMidBatch never ran?)", step)
		}
	}
	var ids []RowID
	for b := range 4 {
		var bt Batch
		for id := b*5000 + 1; id <= (b+1)*5000; id++ {
			bt.Ops = append(bt.Ops, Op{Kind: OpInsert, Row: seedRow(nil, int64(id), int64(id%1000))})
		}
		ids = append(ids, mustApply(t, h, bt)...)
		// From the second batch on, evictMidBatch sized the first's pages.
		check("insert "+string(rune('0'+b)), b > 0)
	}
	var bt Batch
	for i := 0; i < len(ids); i += 3 {
		// A longer k: the page's text data grows.
		row := rowenc.AppendValue(nil, strconv.AppendInt(nil, int64(i+1), 10))
		row = rowenc.AppendValue(row, bytes.Repeat([]byte("k"), 200))
		row = rowenc.AppendValue(row, []byte("v"))
		row = rowenc.AppendValue(row, []byte("1"))
		row = rowenc.AppendValue(row, []byte("2"))
		bt.Ops = append(bt.Ops, Op{Kind: OpUpdate, ID: ids[i], Row: row})
	}
	for k, id := range mustApply(t, h, bt) {
		ids[3*k] = id // an update may move the row
	}
	check("update", false) // every page copied on write: none cached
	bt = Batch{}
	for i := 1; i < len(ids); i += 5 {
		bt.Ops = append(bt.Ops, Op{Kind: OpDelete, ID: ids[i]})
	}
	mustApply(t, h, bt)
	check("delete", false)
}
