package heap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Cold pages on disk (issue 24 item 2, first step).
//
// A PageFile holds the cold pages of every heap given it (Config.Pages):
// a page past the memory bound is written there, compressed, as one
// record, and read back by pread when a reader or the writer needs it;
// only its header, bitmaps and summaries stay in memory. Decoded cold
// pages are kept in the file's PageCache (2Q: a scan does not evict the
// pages point lookups keep reading).
//
// A record is a 32-byte header and the compressed page image:
//
//	magic "SCP1" | crc32c (Castagnoli) of bytes 8.. | owner u64 | page id u32 | length u32 | seq u64
//
// owner names the heap within the file, seq the record (every write gets
// a new one), so a read checks that the bytes it got are the version of
// the page it asked for: a torn write, a bit flip or a misdirected read
// is reported as an error naming the page (*PageError), never decoded
// into rows. The page image inside carries its own xxh3 checksum too.
//
// Space: records are allocated in units of pfUnit bytes. A record is
// freed when no version of any heap can reach it any more (a cleanup on
// the in-memory reference, run after the garbage collector finds the
// page unreachable: no snapshot, version or cache entry holds it), and
// its units are reused by a later record of the same or a smaller size;
// a free run at the end of the file shrinks the file.
//
// Crash safety: the file is a cache of HEAD, not its durable form. It is
// truncated when opened; after a crash or a restart HEAD is restored from
// its checkpoint (heap.Open, the PageStore) or rebuilt from the trees,
// and pages past the bound are written again. Nothing is fsynced.

// pfUnit is the allocation unit of a page file.
const pfUnit = 1 << 10

// pfHeader is the size of a record's header.
const pfHeader = 32

// pfMagic starts every record.
const pfMagic = "SCP1"

// PageFileName is the page file's name in the directory OpenPageFile is given.
const PageFileName = "heap-pages.cache"

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// ErrCorruptPage is wrapped by errors about a page image that does not
// decode (codec.go) or a page file record that fails its checks.
var _ = ErrCorruptPage

// PageError is a cold page that cannot be read back: an I/O error or a
// record that fails its checksum or identity checks. Readers that have no
// error return (Snapshot.Page) panic with it; Snapshot.PageErr and Apply
// return it.
type PageError struct {
	Page uint32 // page number in its heap
	Off  int64  // record offset in the page file
	Path string // the page file
	Err  error
}

func (e *PageError) Error() string {
	return fmt.Sprintf("heap: cold page %d (record at %d of %s): %v", e.Page, e.Off, e.Path, e.Err)
}

func (e *PageError) Unwrap() error { return e.Err }

// PageFile is the on-disk home of cold pages, shared by heaps (see the
// comment above). Safe for concurrent use.
type PageFile struct {
	f     *os.File
	path  string
	cache *PageCache

	owners atomic.Uint64 // last owner id handed out
	seq    atomic.Uint64 // last record seq

	mu    sync.Mutex
	end   int64           // file length in use (units allocated)
	free  map[int][]int64 // free runs by length in units: their offsets
	nfree int64           // bytes in free runs
	live  int64           // bytes in records in use

	writes, reads, readahead, corrupt, writeErrs, written atomic.Int64
}

// OpenPageFile makes (or truncates: its content is a cache, see above)
// the page file in dir, with a decoded-page cache of cacheBytes.
func OpenPageFile(dir string, cacheBytes int64) (*PageFile, error) {
	path := filepath.Join(dir, PageFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("heap page file: %w", err)
	}
	return &PageFile{f: f, path: path, cache: NewPageCache(cacheBytes), free: map[int][]int64{}}, nil
}

// Close removes the file's name (a cache of HEAD is not kept across
// runs). Heaps still holding pages in it keep reading them: the open file
// is closed by the runtime once the PageFile is unreachable.
func (pf *PageFile) Close() error {
	if err := os.Remove(pf.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("heap page file: %w", err)
	}
	return nil
}

// CloseFile closes the open file, for an owner that knows no heap given
// it will read or write it again (every reader gone: a daemon whose model
// and listeners are down), so the descriptor is released now rather than
// when the runtime finds the PageFile unreachable, which a process that
// embeds the owner may not do for long (and a file system holding the
// descriptor cannot be unmounted). A read after it fails (a *PageError),
// a write returns an error, a freed record no longer shrinks the file.
// Calling it again is harmless.
func (pf *PageFile) CloseFile() error {
	if err := pf.f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("heap page file: %w", err)
	}
	return nil
}

// Path is the file's path.
func (pf *PageFile) Path() string { return pf.path }

// Cache is the file's decoded-page cache.
func (pf *PageFile) Cache() *PageCache { return pf.cache }

// PageFileStats is what a page file holds and did.
type PageFileStats struct {
	FileBytes, LiveBytes, FreeBytes int64
	Writes, Reads, ReadAhead        int64
	WrittenBytes                    int64
	Corrupt, WriteErrors            int64
}

// Stats reports the file's use.
func (pf *PageFile) Stats() PageFileStats {
	pf.mu.Lock()
	st := PageFileStats{FileBytes: pf.end, LiveBytes: pf.live, FreeBytes: pf.nfree}
	pf.mu.Unlock()
	st.Writes, st.Reads, st.ReadAhead = pf.writes.Load(), pf.reads.Load(), pf.readahead.Load()
	st.Corrupt, st.WriteErrors, st.WrittenBytes = pf.corrupt.Load(), pf.writeErrs.Load(), pf.written.Load()
	return st
}

// newOwner returns an id for one heap's records.
func (pf *PageFile) newOwner() uint64 { return pf.owners.Add(1) }

// diskRef is a cold page's record. The record's units are freed by a
// cleanup once the diskRef is unreachable; a reader keeps it alive for the
// length of its read.
type diskRef struct {
	pf    *PageFile
	owner uint64
	id    uint32
	seq   uint64
	off   int64
	n     int // payload bytes
}

// extent is a run of units, what a cleanup gives back.
type extent struct {
	pf    *PageFile
	off   int64
	units int
	seq   uint64
}

func unitsFor(n int) int { return (pfHeader + n + pfUnit - 1) / pfUnit }

// alloc reserves units units: a free run of that length, else a longer one
// split, else the end of the file.
func (pf *PageFile) alloc(units int) int64 {
	pf.mu.Lock()
	defer pf.mu.Unlock()
	pf.live += int64(units) * pfUnit
	// Exact size first, then up to 4× longer runs (the rest stays free).
	for u := units; u <= 4*units; u++ {
		offs := pf.free[u]
		if len(offs) == 0 {
			continue
		}
		off := offs[len(offs)-1]
		if len(offs) == 1 {
			delete(pf.free, u)
		} else {
			pf.free[u] = offs[:len(offs)-1]
		}
		pf.nfree -= int64(u) * pfUnit
		if u > units {
			rest := off + int64(units)*pfUnit
			pf.free[u-units] = append(pf.free[u-units], rest)
			pf.nfree += int64(u-units) * pfUnit
		}
		return off
	}
	off := pf.end
	pf.end += int64(units) * pfUnit
	return off
}

// release gives e's units back (a cleanup: the record is unreachable).
func (pf *PageFile) release(e extent) {
	pf.cache.drop(e.seq)
	pf.mu.Lock()
	defer pf.mu.Unlock()
	pf.live -= int64(e.units) * pfUnit
	if e.off+int64(e.units)*pfUnit == pf.end {
		// The last record: the file shrinks (free runs just before it are
		// left as they are: they are reused by size).
		pf.end = e.off
		_ = pf.f.Truncate(pf.end) // a failed truncate only wastes space
		return
	}
	pf.free[e.units] = append(pf.free[e.units], e.off)
	pf.nfree += int64(e.units) * pfUnit
}

// write stores blob (a compressed page image) as page id of owner and
// returns its reference, and the record it wrote, made in buf's memory
// when it is large enough (the writer's scratch, for its next write).
func (pf *PageFile) write(owner uint64, id uint32, blob, buf []byte) (*diskRef, []byte, error) {
	units := unitsFor(len(blob))
	seq := pf.seq.Add(1)
	rec := slices.Grow(buf[:0], pfHeader+len(blob))[:pfHeader+len(blob)]
	copy(rec, pfMagic)
	binary.LittleEndian.PutUint64(rec[8:], owner)
	binary.LittleEndian.PutUint32(rec[16:], id)
	binary.LittleEndian.PutUint32(rec[20:], uint32(len(blob)))
	binary.LittleEndian.PutUint64(rec[24:], seq)
	copy(rec[pfHeader:], blob)
	binary.LittleEndian.PutUint32(rec[4:], crc32.Checksum(rec[8:], crc32c))
	off := pf.alloc(units)
	if _, err := pf.f.WriteAt(rec, off); err != nil {
		pf.writeErrs.Add(1)
		pf.release(extent{pf: pf, off: off, units: units, seq: seq})
		return nil, rec, fmt.Errorf("heap page file %s: write page %d: %w", pf.path, id, err)
	}
	pf.writes.Add(1)
	pf.written.Add(int64(units) * pfUnit)
	r := &diskRef{pf: pf, owner: owner, id: id, seq: seq, off: off, n: len(blob)}
	runtime.AddCleanup(r, func(e extent) { e.pf.release(e) }, extent{pf: pf, off: off, units: units, seq: seq})
	return r, rec, nil
}

// read returns r's compressed image, checked.
func (r *diskRef) read() ([]byte, error) {
	rec, err := r.readInto(nil)
	if err != nil {
		return nil, err
	}
	return rec[pfHeader:], nil
}

// readInto is read into buf's memory when it is large enough (a scan's
// reader reuses one buffer), returning the whole record, header included.
func (r *diskRef) readInto(buf []byte) ([]byte, error) {
	pf := r.pf
	rec := buf
	if cap(rec) < pfHeader+r.n {
		rec = make([]byte, pfHeader+r.n)
	}
	rec = rec[:pfHeader+r.n]
	_, err := pf.f.ReadAt(rec, r.off)
	runtime.KeepAlive(r) // the record is not freed while being read
	pf.reads.Add(1)
	if err != nil {
		return nil, &PageError{Page: r.id, Off: r.off, Path: pf.path, Err: err}
	}
	if err := r.check(rec); err != nil {
		pf.corrupt.Add(1)
		return nil, &PageError{Page: r.id, Off: r.off, Path: pf.path, Err: fmt.Errorf("%w: %v", ErrCorruptPage, err)}
	}
	return rec, nil
}

// check verifies a record's header against what r expects.
func (r *diskRef) check(rec []byte) error {
	switch {
	case string(rec[:4]) != pfMagic:
		return errors.New("no record magic")
	case crc32.Checksum(rec[8:], crc32c) != binary.LittleEndian.Uint32(rec[4:]):
		return errors.New("crc32c mismatch")
	case binary.LittleEndian.Uint64(rec[8:]) != r.owner || binary.LittleEndian.Uint32(rec[16:]) != r.id ||
		binary.LittleEndian.Uint64(rec[24:]) != r.seq:
		return fmt.Errorf("record holds owner %d page %d seq %d, not owner %d page %d seq %d",
			binary.LittleEndian.Uint64(rec[8:]), binary.LittleEndian.Uint32(rec[16:]), binary.LittleEndian.Uint64(rec[24:]),
			r.owner, r.id, r.seq)
	case int(binary.LittleEndian.Uint32(rec[20:])) != r.n:
		return errors.New("length mismatch")
	}
	return nil
}

// readAhead asks the kernel to read the records of refs (the pages a
// sequential scan reads next) into its page cache, so the scan's preads
// do not wait on the disk one page at a time.
func (pf *PageFile) readAhead(refs []*diskRef) {
	if len(refs) == 0 {
		return
	}
	lo, hi := refs[0].off, refs[0].off
	for _, r := range refs {
		lo = min(lo, r.off)
		hi = max(hi, r.off+int64(pfHeader+r.n))
	}
	// One hint when the records are near each other (written in page
	// order: the usual case), else one per record.
	if hi-lo <= int64(len(refs))*4*(pfHeader+int64(refs[0].n)) {
		_ = unix.Fadvise(int(pf.f.Fd()), lo, hi-lo, unix.FADV_WILLNEED)
	} else {
		for _, r := range refs {
			_ = unix.Fadvise(int(pf.f.Fd()), r.off, int64(pfHeader+r.n), unix.FADV_WILLNEED)
		}
	}
	runtime.KeepAlive(refs)
	pf.readahead.Add(int64(len(refs)))
}
