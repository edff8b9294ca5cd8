package heap

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

// testCharger is a Charger that refuses past max and records what it
// holds.
type testCharger struct{ held, max int64 }

func (c *testCharger) Grow(n int64) error {
	if c.held+n > c.max {
		return errors.New("over")
	}
	c.held += n
	return nil
}

func (c *testCharger) Shrink(n int64) { c.held -= n }

// scanAll reads every page of s through a ColReader of cols and checks
// each against the full view; it returns the heap's decodes it made.
func scanAll(t *testing.T, h *Heap, s *Snapshot, cols []int) int64 {
	t.Helper()
	before := h.Thaws()
	rd := s.ColReader(cols)
	var views []PageView
	for i := range s.NumPages() {
		got, err := rd.Page(i)
		if err != nil {
			t.Fatalf("cols %v page %d: %v", cols, i, err)
		}
		views = append(views, got)
	}
	thaws := h.Thaws() - before
	// Compared with the full views of another snapshot of the version
	// (s.Page would keep s's pages in its slots, which ColReaders read).
	o := s.Clone()
	defer o.Release()
	for i, got := range views {
		sameColumns(t, got, o.Page(i), cols, i)
	}
	return thaws
}

// sameColumns fails t unless view got of page i holds the slots, live
// rows and values of columns cols that the full view holds.
func sameColumns(t *testing.T, got, full PageView, cols []int, i int) {
	t.Helper()
	if got.Slots() != full.Slots() || got.LiveCount() != full.LiveCount() {
		t.Fatalf("cols %v page %d: %d slots %d live, want %d %d", cols, i, got.Slots(), got.LiveCount(), full.Slots(), full.LiveCount())
	}
	for slot := range full.Slots() {
		a, okA := got.AppendColumns(nil, slot, cols)
		b, okB := full.AppendColumns(nil, slot, cols)
		if okA != okB || string(a) != string(b) {
			t.Fatalf("cols %v page %d slot %d: %q (%v), want %q (%v)", cols, i, slot, a, okA, b, okB)
		}
	}
}

// TestScanCacheShared: scans of one snapshot sharing a ScanCache decode
// each cold page once — a later scan of the same columns decodes
// nothing, one of more columns decodes only the columns it adds — and
// read the same values as without it; the cache's bytes are charged and
// given back when the last scan ends.
func TestScanCacheShared(t *testing.T) {
	h, s := coldHeap(t, coldMemCfg, 7, 8)
	cold := 0
	for i := range s.NumPages() {
		if s.v.pages.at(i).isCold() {
			cold++
		}
	}
	ch := &testCharger{max: 1 << 30}
	sc := s.ShareScans(3, 1<<30, ch)
	if sc == nil {
		t.Fatal("no cache attached")
	}
	if again := s.ShareScans(5, 1, nil); again != sc {
		t.Fatal("a second ShareScans replaced the cache")
	}
	if n := scanAll(t, h, s, []int{0, 3}); n != int64(cold) {
		t.Fatalf("first scan decoded %d pages, want the %d cold ones", n, cold)
	}
	st := sc.Stats()
	if st.Pages != cold || st.Bytes <= 0 || ch.held != st.Bytes {
		t.Fatalf("after the first scan: %+v, charged %d", st, ch.held)
	}
	if n := scanAll(t, h, s, []int{3, 0}); n != 0 {
		t.Fatalf("second scan of the same columns decoded %d pages", n)
	}
	if st := sc.Stats(); st.Hits != int64(cold) {
		t.Fatalf("second scan: %+v, want %d hits", st, cold)
	}
	before := sc.Stats().Bytes
	// More columns: each page decoded once more, for column 5 alone.
	if n := scanAll(t, h, s, []int{0, 5, 3}); n != int64(cold) {
		t.Fatalf("third scan decoded %d pages, want %d (the added column)", n, cold)
	}
	if st := sc.Stats(); st.Bytes <= before || ch.held != st.Bytes {
		t.Fatalf("third scan: %+v (was %d bytes), charged %d", st, before, ch.held)
	}
	for i := range s.NumPages() {
		if p := s.v.pages.at(i); p.isCold() {
			e := sc.pages[p]
			if !e.has[0] || !e.has[3] || !e.has[5] || e.has[1] || e.p.cols[1].nulls != nil {
				t.Fatalf("page %d: entry holds %v", i, e.has)
			}
		}
	}
	if n := scanAll(t, h, s, []int{5}); n != 0 {
		t.Fatalf("a scan of a column held decoded %d pages", n)
	}
	sc.EndScan()
	sc.EndScan()
	if ch.held == 0 || sc.Stats().Pages == 0 {
		t.Fatal("dropped before its last scan ended")
	}
	sc.EndScan()
	if st := sc.Stats(); st.Pages != 0 || st.Bytes != 0 || ch.held != 0 {
		t.Fatalf("after the last scan: %+v, charged %d", st, ch.held)
	}
	// Dropped: scans decode again and keep nothing.
	if n := scanAll(t, h, s, []int{0, 3}); n != int64(cold) {
		t.Fatalf("after the drop a scan decoded %d pages, want %d", n, cold)
	}
	if st := sc.Stats(); st.Pages != 0 || ch.held != 0 {
		t.Fatalf("kept pages after the drop: %+v, charged %d", st, ch.held)
	}
}

// TestScanCacheBounded: the cache keeps pages while they fit its bound
// and the account, refuses the rest (keeping the first pages, which the
// next scan reads first), never holds more than the bound, and gives
// its bytes back at the snapshot's Release.
func TestScanCacheBounded(t *testing.T) {
	for _, tc := range []struct {
		name         string
		limit, grant int64
	}{{"bound", 20 << 10, 1 << 30}, {"account", 1 << 30, 20 << 10}} {
		t.Run(tc.name, func(t *testing.T) {
			_, s0 := coldHeap(t, coldMemCfg, 9, 10)
			s := s0.Clone() // released by the test
			ch := &testCharger{max: tc.grant}
			sc := s.ShareScans(2, tc.limit, ch)
			scanAll(t, s.h, s, []int{0, 1, 2, 3})
			st := sc.Stats()
			if st.Refused == 0 || st.Pages == 0 {
				t.Fatalf("%+v: want some pages kept and some refused", st)
			}
			if st.Bytes > min(tc.limit, tc.grant) || ch.held != st.Bytes {
				t.Fatalf("%+v over the bound %d / grant %d (charged %d)", st, tc.limit, tc.grant, ch.held)
			}
			seen := 0
			for i := range s.NumPages() {
				if s.v.pages.at(i).isCold() {
					seen++
				}
			}
			if got, want := scanAll(t, s.h, s, []int{0, 1, 2, 3}), int64(seen-st.Pages); got != want {
				t.Fatalf("second scan decoded %d pages, want the %d not kept", got, want)
			}
			s.Release()
			if st := sc.Stats(); st.Pages != 0 || ch.held != 0 {
				t.Fatalf("after Release: %+v, charged %d", st, ch.held)
			}
			if s.ShareScans(2, 1<<20, nil) != sc {
				t.Fatal("ShareScans after Release attached another cache")
			}
		})
	}
}

// TestScanCacheOneScan: a snapshot read by one scan, or given no room,
// gets no cache, and its ColReaders decode as before.
func TestScanCacheOneScan(t *testing.T) {
	_, s := coldHeap(t, coldMemCfg, 11, 12)
	if s.ShareScans(1, 1<<20, nil) != nil || s.ShareScans(2, 0, nil) != nil {
		t.Fatal("a cache for one scan, or of no bytes")
	}
	if s.ColReader([]int{0}).cache != nil {
		t.Fatal("a reader with a cache")
	}
	var nilCache *ScanCache
	nilCache.EndScan() // safe
}

// TestScanCacheConcurrent: readers of several columns sets share one
// cache from several goroutines (a parallel scan's workers, two scans at
// once) and each reads the values of its columns (run with -race).
func TestScanCacheConcurrent(t *testing.T) {
	_, s := coldHeap(t, coldMemCfg, 13, 14)
	sc := s.ShareScans(4, 1<<30, &lockedCharger{testCharger: testCharger{max: 1 << 30}})
	sets := [][]int{{0, 1}, {1, 2}, {0, 2, 3}, {3}}
	errs := make(chan error, len(sets))
	for _, cols := range sets {
		go func() {
			rd := s.ColReader(cols)
			o := s.Clone()
			defer o.Release()
			for i := range s.NumPages() {
				got, err := rd.Page(i)
				if err != nil {
					errs <- err
					return
				}
				full := o.Page(i)
				for slot := range full.Slots() {
					a, _ := got.AppendColumns(nil, slot, cols)
					b, _ := full.AppendColumns(nil, slot, cols)
					if string(a) != string(b) {
						errs <- fmt.Errorf("cols %v page %d slot %d: %q, want %q", cols, i, slot, a, b)
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range sets {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if st := sc.Stats(); st.Pages == 0 {
		t.Fatalf("%+v: nothing kept", st)
	}
}

// lockedCharger is a testCharger safe for concurrent use.
type lockedCharger struct {
	mu sync.Mutex
	testCharger
}

func (c *lockedCharger) Grow(n int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.testCharger.Grow(n)
}

func (c *lockedCharger) Shrink(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.testCharger.Shrink(n)
}
