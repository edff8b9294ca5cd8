package heap

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// testPageFile is a page file in the test's directory, closed at its end.
func testPageFile(t testing.TB, cacheBytes int64) *PageFile {
	t.Helper()
	pf, err := OpenPageFile(t.TempDir(), cacheBytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pf.Close() })
	return pf
}

// diskHeap is a heap of n rows of modelSchema whose pages past a small
// bound are on disk in pf, and the rows by id.
func diskHeap(t testing.TB, pf *PageFile, n int) (*Heap, map[RowID][]byte) {
	t.Helper()
	h, err := New(modelSchema, Config{PageRows: 64, PageBytes: 8 << 10, Memory: 32 << 10, Pages: pf})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	rows := map[RowID][]byte{}
	for b := 0; b < n; b += 256 {
		var ops []Op
		for i := b; i < min(n, b+256); i++ {
			ops = append(ops, Op{Kind: OpInsert, Row: randRow(r, int64(i))})
		}
		ids := mustApply(t, h, Batch{LSN: uint64(b + 1), Ops: ops})
		for i, id := range ids {
			rows[id] = ops[i].Row
		}
	}
	if m := h.Memory(); m.DiskPages < 10 {
		t.Fatalf("want most pages on disk: %+v", m)
	}
	return h, rows
}

// diskPage returns the first page of h's current version whose image is
// in the page file, and its record.
func diskPage(t testing.TB, h *Heap) (int, *diskRef) {
	t.Helper()
	v := h.cur.Load()
	for i := range v.pages.len() {
		if r := v.pages.at(i).disk; r != nil {
			return i, r
		}
	}
	t.Fatal("no page on disk")
	return 0, nil
}

// TestPageFileRowsReadBack: every row of a heap whose pages are mostly on
// disk reads back as written, by row and by a full scan, and the pages'
// images are not in memory.
func TestPageFileRowsReadBack(t *testing.T) {
	pf := testPageFile(t, 64<<10)
	h, rows := diskHeap(t, pf, 5000)
	m := h.Memory()
	if m.ColdBytes > int64(m.ColdPages)*(64+2*8*2) {
		t.Fatalf("cold pages hold %d bytes in memory: %+v", m.ColdBytes, m)
	}
	s := h.Snapshot()
	defer s.Release()
	for id, want := range rows {
		got, ok := s.Row(nil, id)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("row %d: %q, %v; want %q", id, got, ok, want)
		}
	}
	n := 0
	s.ForEach(func(id RowID, row []byte) bool {
		if !bytes.Equal(row, rows[id]) {
			t.Fatalf("scan row %d: %q, want %q", id, row, rows[id])
		}
		n++
		return true
	})
	if n != len(rows) {
		t.Fatalf("scan read %d rows, want %d", n, len(rows))
	}
	if st := pf.Stats(); st.Reads == 0 || st.Writes == 0 || st.Corrupt != 0 {
		t.Fatalf("page file stats: %+v", st)
	}
}

// TestPageFileCorruptPageReported: a record damaged on disk (a flipped
// byte, or another record's bytes in its place) is reported as a
// *PageError naming the page, by PageErr, by Page and Row (a panic, not
// a row), by Apply (an error, nothing published) and by Checkpoint; the
// other pages still read.
func TestPageFileCorruptPageReported(t *testing.T) {
	for _, how := range []string{"flipped byte", "other record"} {
		t.Run(how, func(t *testing.T) {
			pf := testPageFile(t, 64<<10)
			h, rows := diskHeap(t, pf, 3000)
			pid, ref := diskPage(t, h)
			switch how {
			case "flipped byte":
				b := make([]byte, 1)
				pf.f.ReadAt(b, ref.off+pfHeader+int64(ref.n)/2)
				b[0] ^= 0x40
				pf.f.WriteAt(b, ref.off+pfHeader+int64(ref.n)/2)
			case "other record":
				v := h.cur.Load()
				var other *diskRef
				for i := pid + 1; i < v.pages.len() && other == nil; i++ {
					other = v.pages.at(i).disk
				}
				rec := make([]byte, pfHeader+other.n)
				pf.f.ReadAt(rec, other.off)
				pf.f.WriteAt(rec, ref.off)
			}
			s := h.Snapshot()
			defer s.Release()
			_, err := s.PageErr(pid)
			var pe *PageError
			if !errors.As(err, &pe) || pe.Page != uint32(pid) || !errors.Is(err, ErrCorruptPage) {
				t.Fatalf("PageErr(%d) = %v, want a *PageError naming the page", pid, err)
			}
			t.Logf("reported: %v", err)
			func() {
				defer func() {
					r := recover()
					if e, ok := r.(*PageError); !ok || e.Page != uint32(pid) {
						t.Fatalf("Row on the damaged page: recovered %v, want its *PageError", r)
					}
				}()
				row, ok := s.Row(nil, MakeRowID(uint32(pid), 0))
				t.Fatalf("Row on the damaged page returned %q, %v", row, ok)
			}()
			// Every other page still reads.
			for id, want := range rows {
				if id.Page() == uint32(pid) {
					continue
				}
				if got, ok := s.Row(nil, id); !ok || !bytes.Equal(got, want) {
					t.Fatalf("row %d: %q, want %q", id, got, want)
				}
			}
			lsn := h.cur.Load().lsn
			_, err = h.Apply(Batch{LSN: lsn + 1, Ops: []Op{{Kind: OpDelete, ID: MakeRowID(uint32(pid), 0)}}})
			if !errors.As(err, &pe) || pe.Page != uint32(pid) {
				t.Fatalf("Apply on the damaged page: %v, want its *PageError", err)
			}
			if h.cur.Load().lsn != lsn {
				t.Fatal("a failed Apply published a version")
			}
			if _, err := h.Checkpoint(NewMemStore(), "t"); !errors.As(err, &pe) {
				t.Fatalf("Checkpoint over the damaged page: %v, want its *PageError", err)
			}
			if pf.Stats().Corrupt == 0 {
				t.Fatal("no corrupt read counted")
			}
		})
	}
}

// TestPageFileReusesSpace: rewriting every row again and again (each
// round makes every page hot, then cold again: a new record per page)
// keeps the file near what the current version holds, because records no
// version reaches are freed and their space reused.
func TestPageFileReusesSpace(t *testing.T) {
	pf := testPageFile(t, 0)
	h, rows := diskHeap(t, pf, 4000)
	r := rand.New(rand.NewPCG(7, 8))
	lsn := h.cur.Load().lsn
	var peakLive int64
	for round := range 12 {
		var ops []Op
		for id := range rows {
			ops = append(ops, Op{Kind: OpUpdate, ID: id, Row: randRow(r, int64(id))})
		}
		lsn++
		ids := mustApply(t, h, Batch{LSN: lsn, Ops: ops})
		next := map[RowID][]byte{}
		for i, id := range ids {
			next[id] = ops[i].Row
		}
		rows = next
		runtime.GC()
		st := pf.Stats()
		t.Logf("round %d: %+v", round, st)
		peakLive = max(peakLive, st.LiveBytes)
	}
	// Cleanups run after a GC, on their own goroutine: wait for them.
	deadline := time.Now().Add(30 * time.Second)
	for {
		runtime.GC()
		st := pf.Stats()
		// The file stays a small multiple of what is live: at its peak it
		// holds the version being replaced and the new one (twice what is
		// live), what the allocator leaves between them, and records whose
		// cleanups have not run yet (they run after a GC, asynchronously,
		// so the figure wobbles from run to run). Without reuse it would
		// hold every round written (WrittenBytes, 12 versions).
		if st.FileBytes <= 4*peakLive && st.WrittenBytes >= 8*st.FileBytes {
			t.Logf("%+v", st)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("page file not reused (peak live %d bytes): %+v", peakLive, st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s := h.Snapshot()
	defer s.Release()
	for id, want := range rows {
		if got, ok := s.Row(nil, id); !ok || !bytes.Equal(got, want) {
			t.Fatalf("row %d: %q, want %q", id, got, want)
		}
	}
}

// TestPageCacheScanResistant: pages point lookups keep reading stay in
// the page cache through a full scan of a table many times larger than
// the cache: after the scan, reading them again misses nothing. The scan
// read ahead of itself.
func TestPageCacheScanResistant(t *testing.T) {
	// A cache of 16 decoded pages (their size read from a first heap: the
	// cache is the file's from its opening, as cleanups read it).
	h0, _ := diskHeap(t, testPageFile(t, 0), 1000)
	s0 := h0.Snapshot()
	pid, _ := diskPage(t, h0)
	pageBytes := s0.Page(pid).p.memBytes()
	s0.Release()
	pf := testPageFile(t, 16*pageBytes)
	h, rows := diskHeap(t, pf, 20000)

	// Hot rows: one per page on 6 pages on disk.
	var hot []RowID
	for id := range rows {
		if h.cur.Load().pages.at(int(id.Page())).disk == nil {
			continue
		}
		dup := false
		for _, x := range hot {
			dup = dup || x.Page() == id.Page()
		}
		if !dup {
			hot = append(hot, id)
		}
		if len(hot) == 6 {
			break
		}
	}
	lookups := func() {
		for round := range 3 {
			for _, id := range hot {
				s := h.Snapshot() // a point get: its own snapshot
				if got, ok := s.Row(nil, id); !ok || !bytes.Equal(got, rows[id]) {
					t.Fatalf("row %d: %q", id, got)
				}
				s.Release()
			}
			// Other pages, each read once, push the hot ones out of the
			// first-read queue meanwhile, so their next read promotes them.
			s := h.Snapshot()
			for i := range 20 {
				s.Page(h.cur.Load().pages.len() - 1 - 20*round - i)
			}
			s.Release()
		}
	}
	lookups()
	isHot := func(id RowID) bool {
		seq := h.cur.Load().pages.at(int(id.Page())).disk.seq
		pf.cache.mu.Lock()
		defer pf.cache.mu.Unlock()
		e, ok := pf.cache.byKey[seq]
		return ok && e.Value.(*cacheEntry).hot
	}
	for _, id := range hot {
		if !isHot(id) {
			t.Fatalf("page %d not promoted: %+v", id.Page(), pf.cache.Stats())
		}
	}
	s := h.Snapshot()
	n := 0
	s.ForEach(func(RowID, []byte) bool { n++; return true })
	s.Release()
	if n != len(rows) {
		t.Fatalf("scan read %d rows", n)
	}
	before := pf.cache.Stats()
	for _, id := range hot {
		s := h.Snapshot()
		s.Row(nil, id)
		s.Release()
	}
	after := pf.cache.Stats()
	if after.Misses != before.Misses {
		t.Fatalf("hot pages evicted by the scan: %d misses after it (before %+v, after %+v)", after.Misses-before.Misses, before, after)
	}
	if before.Evictions == 0 {
		t.Fatalf("the scan evicted nothing: the cache is not smaller than the table: %+v", before)
	}
	if pf.Stats().ReadAhead == 0 {
		t.Fatalf("no read-ahead during a sequential scan: %+v", pf.Stats())
	}
	t.Logf("cache %+v; file %+v", after, pf.Stats())
}

// TestPageCacheBounded: the cache stays within its byte limit, remembers
// at most its bound of evicted keys, and forgets dropped records.
func TestPageCacheBounded(t *testing.T) {
	c := NewPageCache(10 * 1000)
	p := &page{live: make([]uint64, 125)} // 1,000 bytes
	for i := range uint64(1000) {
		if c.get(i) == nil {
			c.put(i, p)
		}
		if i%7 == 0 && c.get(i/2) == nil {
			c.put(i/2, p)
		}
		if st := c.Stats(); st.Bytes > st.Limit {
			t.Fatalf("cache over its limit: %+v", st)
		}
	}
	st := c.Stats()
	if st.Evictions == 0 || st.Ghosts == 0 || st.Ghosts > max(64, 2*st.Pages) {
		t.Fatalf("stats %+v", st)
	}
	for i := range uint64(1000) {
		c.drop(i)
	}
	if st := c.Stats(); st.Bytes != 0 || st.Pages != 0 || st.Ghosts != 0 {
		t.Fatalf("after dropping every key: %+v", st)
	}
}
