// The copy intake's spare arena chunks: a range whose run went to a file
// hands the chunks that run filled to its table's copy, and the next
// range that needs a chunk takes one of those instead of allocating it.
//
// Why: at 10M rows the ranges allocated 832 one-MiB chunks (840 MB) of
// which only the runs kept in memory (half the copy memory) were live at
// once; the rest became garbage as each run was written out. With the
// HEAD growing beside them the GC seldom ran, so every chunk was fresh
// memory: its first touch a page fault per 4 KiB, and on this VM a fault
// costs ~15 µs of CPU (a fresh process's copy took 8 s more CPU and 536k
// more minor faults than the same copy in a process whose heap had
// already grown: /tmp/s25/copy-10m-main.md, scale-2026-12-07-s25-copy.md).

package mirror

import "sync"

// spareChunks are arena chunks no row refers to any more, with their copy
// pool reservation (so the pool's bound still covers them), up to max
// bytes. Shared by the ranges of one table's copy.
type spareChunks struct {
	mu     sync.Mutex
	free   [][]byte
	bytes  int64 // reserved from the copy pool for free
	max    int64
	closed bool // drained: put keeps nothing any more
	reused int64
}

// put keeps b, an empty chunk, with its reservation of cap(b) bytes, and
// reports whether it did; if not, the reservation stays the caller's.
func (s *spareChunks) put(b []byte) bool {
	n := int64(cap(b))
	if n == 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.bytes+n > s.max {
		return false
	}
	s.free = append(s.free, b[:0])
	s.bytes += n
	return true
}

// get returns a kept chunk of at least n bytes, whose reservation of its
// capacity becomes the caller's, or nil.
func (s *spareChunks) get(n int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.free) - 1; i >= 0; i-- {
		b := s.free[i]
		if cap(b) < n {
			continue
		}
		last := len(s.free) - 1
		s.free[i] = s.free[last]
		s.free[last] = nil
		s.free = s.free[:last]
		s.bytes -= int64(cap(b))
		s.reused++
		return b
	}
	return nil
}

// drain forgets every kept chunk and returns the reservation they held
// (the caller releases it); put keeps nothing afterwards.
func (s *spareChunks) drain() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.bytes
	clear(s.free)
	s.free, s.bytes, s.closed = nil, 0, true
	return n
}

// taken is how many chunks get handed back.
func (s *spareChunks) taken() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reused
}
