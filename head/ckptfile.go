package head

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/sidecar-dev/sidecar/internal/durable"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/radixindex"
)

// Image files (checkpoint record version 5, issue 24: lazy index and key
// store pages at restart). Version 4 wrote the radix index and the key
// store as images in Badger chunks, which a restore read and copied whole
// into memory before the model was served: at 100M rows 1.7 GiB read, a
// large part of a 38.6 s restart, and all of it resident after. A store
// with a data directory now writes them as two files per table in
// <data_dir>/headimages, named by the checkpoint's generation:
//
//	<gen:016x>-<table's place in the record>.i   radixindex image (version 3)
//	<gen:016x>-<table's place in the record>.k   key store file (keyfile.go)
//
// A restore maps both read-only (mmap, MAP_PRIVATE) and makes the index's
// node chunks and the key store's pages views of the mappings
// (radixindex.MapImage, mapKeyFile), reading only the headers and the key
// store's page directory: the model is served as soon as the position
// record and the heaps' manifests are read, whatever the index's size, and
// a page of either is read by the kernel the first time a lookup touches
// it. Changes copy what they touch into memory of the model's own first
// (the chunks and pages are marked mapped: copy-on-write as for a frozen
// view), so the files are never written after the checkpoint.
//
// Crash safety is the chunks': a generation's files are written, synced,
// and their directory synced before the position record naming them is
// written; files of a generation no record names (a kill before the
// record) are swept by the next checkpoint, never read. A file is never
// changed once written: a later checkpoint writes its own generation's
// (creating new files: an old name left by a kill is removed first, so a
// new inode), and its sweep unlinks the older generations' files. A
// mapping of an unlinked file stays valid (the inode lives while mapped),
// so the running model's views of the generation it restored from stay
// valid after a checkpoint sweeps it; the mappings are kept for the
// process's life (a reader may hold a key slice of one), and so the disk
// space of the one restored generation until the process exits.
//
// The pages' checksums are checked by the warmer after the model is served
// (verify: reading the files, not the mappings, so the check does not make
// the pages resident); a damaged page makes the model unusable and it is
// rebuilt from the trees, as for a damaged heap image. Until then a damaged
// page of the index could answer wrongly: the window is the verification's
// (seconds), and the files were whole when their record was written.
const (
	imageDirName  = "headimages"
	recordImages  = 4 // images in chunks, read whole
	recordFiles   = 5 // images in files, mapped (or chunks, for a store without a directory)
	imageFileMode = 0o600
)

// imageDir is where the model's image files are (a store without a
// directory, or a read-only one, has none: ""), for reading.
func (p *Persist) imageDir() string {
	if p == nil || p.DB == nil {
		return ""
	}
	if d := p.DB.Dir(); d != "" {
		return filepath.Join(d, imageDirName)
	}
	return ""
}

// writesFiles reports whether a checkpoint writes image files.
func (p *Persist) writesFiles() bool {
	return !p.streams && !p.chunkImages && !p.DB.ReadOnly() && p.imageDir() != ""
}

// imageFileName is the file of table number i's index ('i') or key store
// ('k') of generation gen.
func imageFileName(gen uint64, i int, kind byte) string {
	return fmt.Sprintf("%016x-%d.%c", gen, i, kind)
}

// fileGeneration is the generation an image file's name carries.
func fileGeneration(name string) (uint64, bool) {
	g, _, ok := strings.Cut(name, "-")
	if !ok || len(g) != 16 {
		return 0, false
	}
	v, err := strconv.ParseUint(g, 16, 64)
	return v, err == nil
}

// writeImageFile writes dir/name with what write writes, and syncs it.
func writeImageFile(dir, name string, write func(io.Writer) (int64, error)) (int64, error) {
	path := filepath.Join(dir, name)
	// A kill before a record named this generation may have left the
	// name: a new file, not the old one rewritten in place.
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, imageFileMode)
	if err != nil {
		return 0, err
	}
	n, err := write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, fmt.Errorf("image file %s: %w", name, err)
	}
	return n, nil
}

// syncDir syncs directory dir (the names of the files just made).
func syncDir(dir string) error { return durable.SyncDir(dir) }

// imageFileGenerations lists dir's image files by generation (a missing
// directory: none).
func imageFileGenerations(dir string) (map[uint64][]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	gens := map[uint64][]string{}
	for _, e := range ents {
		if g, ok := fileGeneration(e.Name()); ok {
			gens[g] = append(gens[g], e.Name())
		}
	}
	return gens, nil
}

// topFileGeneration is the highest generation of dir's image files.
func topFileGeneration(dir string) (uint64, error) {
	gens, err := imageFileGenerations(dir)
	var top uint64
	for g := range gens {
		top = max(top, g)
	}
	return top, err
}

// sweepImageFiles unlinks every image file of dir not of generation keep
// (a mapping of one stays valid).
func sweepImageFiles(dir string, keep uint64) error {
	gens, err := imageFileGenerations(dir)
	for g, names := range gens {
		if g == keep {
			continue
		}
		for _, n := range names {
			if rerr := os.Remove(filepath.Join(dir, n)); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				err = errors.Join(err, rerr)
			}
		}
	}
	return err
}

// tableImages is a table's mapped index and key store files (restored
// from a version 5 or 6 record): per kind the index parts holding its
// pages (version 5: one part, the whole image file, for every kind), and
// the key store's parts.
type tableImages struct {
	mu sync.Mutex // guards the parts' files and released marks
	// ixParts[k][c/ixPer] holds page c of kind k; keyParts[p/keyPer] key
	// page p.
	ixParts  [radixindex.ImageKinds][]*mapPart
	ixPer    int
	keyParts []*mapPart
	keyPer   int
	// resident caches residentBytes (at most every residentEvery).
	resident atomic.Int64
	measured atomic.Int64 // unix nanoseconds of the last measure (0: never)
	evicted  atomic.Int64 // times evict dropped the mappings' pages
	verified atomic.Bool  // verify has read every part (their files closed)
	released atomic.Int64 // bytes of mappings given back (release)
}

// mapPart is one mapped file: a run of an index kind's pages, a key file
// of a run of key pages, or (version 5) a whole image or key file.
type mapPart struct {
	b    []byte
	f    *os.File // open until verify has read it (nil after)
	name string
	// What verify checks: an index part's kind and pages [from, to), a
	// whole index image (whole), or a key file (keyDir, key true).
	kind, from, to int
	whole, key     bool
	keyDir         []keyFileEntry
	// keyTail: the tail the key directory file holds for this part (the
	// restore read that, not the part's own): verify reads the part's and
	// compares.
	keyTail    []byte
	released   bool // b is no longer the file's mapping (release)
	referenced bool // scratch of release
}

// parts returns every distinct part (version 5's index file is every
// kind's).
func (im *tableImages) parts() []*mapPart {
	var out []*mapPart
	seen := map[*mapPart]bool{}
	for _, ps := range append(im.ixParts[:], im.keyParts) {
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// mapImageFile maps path read-only, checking its size is size. The
// kernel's read-ahead is left on: MADV_RANDOM left a tenth of the pages
// resident after 1,000 cold lookups at 10M rows (11 vs 92 MiB) but made
// them 3-25 times slower (3.8 s vs 0.14-1.2 s at load 30-40), each lookup
// reading its nodes one 4 KiB page at a time; the pages read ahead are
// clean and evictable (tableImages.evict).
func mapImageFile(path string, size int) ([]byte, *os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if st.Size() != int64(size) {
		f.Close()
		return nil, nil, fmt.Errorf("%w: %s has %d bytes, the record says %d", ErrCorruptCheckpoint, filepath.Base(path), st.Size(), size)
	}
	if size == 0 {
		f.Close()
		return nil, nil, fmt.Errorf("%w: %s is empty", ErrCorruptCheckpoint, filepath.Base(path))
	}
	b, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("map %s: %w", filepath.Base(path), err)
	}
	return b, f, nil
}

// restoreIndexFiles maps table tr's index and key store files (record
// version 5: one of each) from dir into t's key store and returns the
// index over them, with the mappings.
func restoreIndexFiles(dir string, t *Table, tr tableRecord) (*radixindex.Index, *tableImages, error) {
	im := &tableImages{ixPer: math.MaxInt, keyPer: math.MaxInt}
	kb, kf, err := mapImageFile(filepath.Join(dir, tr.KeysFile), tr.KeysLen)
	if err != nil {
		return nil, nil, fmt.Errorf("keys of %s: %w", tr.Name, err)
	}
	kp := &mapPart{b: kb, f: kf, name: tr.KeysFile, key: true}
	im.keyParts = []*mapPart{kp}
	ib, ifl, err := mapImageFile(filepath.Join(dir, tr.IndexFile), tr.IndexLen)
	if err != nil {
		im.unmap()
		return nil, nil, fmt.Errorf("index of %s: %w", tr.Name, err)
	}
	ip := &mapPart{b: ib, f: ifl, name: tr.IndexFile, whole: true}
	for k := range im.ixParts {
		im.ixParts[k] = []*mapPart{ip}
	}
	ks, err := mapKeyFile(kb)
	if err != nil {
		im.unmap()
		return nil, nil, fmt.Errorf("keys of %s: %w", tr.Name, err)
	}
	kp.keyDir, _ = keyFileDirectory(kb) // checked by mapKeyFile
	ix, err := radixindex.MapImage(ib, func(dst []byte, id uint64) []byte { return t.keys.key(heap.RowID(id)) })
	if err != nil {
		im.unmap()
		return nil, nil, fmt.Errorf("index of %s: %w", tr.Name, err)
	}
	t.keys = ks
	return ix, im, nil
}

// unmap releases the mappings and files: only for images nothing was
// served from (a restore that failed).
func (im *tableImages) unmap() {
	im.closeFiles()
	for _, p := range im.parts() {
		if p.b != nil && !p.released {
			_ = unix.Munmap(p.b)
		}
		p.b = nil
	}
}

func (im *tableImages) closeFiles() {
	im.mu.Lock()
	defer im.mu.Unlock()
	for _, p := range im.parts() {
		if p.f != nil {
			p.f.Close()
			p.f = nil
		}
	}
}

// verify checks every page of every part against its checksum, reading
// the files (not the mappings), and closes them. stop, polled between
// parts, ends it early (nil error; the files stay open, so nothing is
// released).
func (im *tableImages) verify(stop func() bool) error {
	im.mu.Lock()
	parts := im.parts()
	im.mu.Unlock()
	for _, p := range parts {
		if stop() {
			return nil
		}
		if p.f == nil {
			continue
		}
		r := io.NewSectionReader(p.f, 0, int64(len(p.b)))
		var err error
		switch {
		case p.key:
			err = verifyKeyFile(p.f, p.keyDir)
			if err == nil && p.keyTail != nil {
				err = verifyKeyTail(p.f, len(p.b), p.keyTail)
			}
		case p.whole:
			err = radixindex.VerifyImage(bufio.NewReaderSize(r, 1<<20))
		default:
			err = radixindex.VerifyImagePages(bufio.NewReaderSize(r, 1<<20), p.kind, p.from, p.to)
		}
		if err != nil {
			return fmt.Errorf("image file %s: %w", p.name, err)
		}
	}
	im.closeFiles()
	im.verified.Store(true)
	return nil
}

// release gives back the mapping of every part that no page of the
// table's index or key store is a view of any more (every page of it
// changed since the restore, and copied), once verify has read them: the
// part's file, unlinked by a later checkpoint's sweep, then frees its disk
// space (a restored generation's files were held until the process
// exited: ~1.7 GB at 100M rows). It runs under the index's write lock
// (radixindex.Index.Exclusive), so no reader is inside the tree; the
// mapping is replaced by anonymous read-only zero pages at the same
// addresses rather than unmapped, so that a slice some reader kept past
// its lock reads zeros rather than faulting. Frozen views must be
// released (only a checkpoint takes them: its writer calls this). It
// returns the bytes given back.
func (t *Table) releaseImages() int64 {
	im := t.images
	if im == nil || !im.verified.Load() {
		return 0
	}
	var freed int64
	t.ix.Exclusive(func(tr *radixindex.Tree) {
		im.mu.Lock()
		defer im.mu.Unlock()
		parts := im.parts()
		for _, p := range parts {
			p.referenced = false
		}
		tr.MappedPages(func(k, c int) { im.ixParts[k][c/im.ixPer].referenced = true })
		for i, pg := range t.keys.pages {
			if pg == nil || i/im.keyPer >= len(im.keyParts) {
				continue
			}
			if p := im.keyParts[i/im.keyPer]; !p.referenced && !p.released && pg.viewOf(p.b) {
				p.referenced = true
			}
		}
		for _, p := range parts {
			if p.referenced || p.released || len(p.b) == 0 {
				continue
			}
			if err := remapAnonymous(p.b); err != nil {
				continue // kept: its disk space until exit, as before
			}
			p.released = true
			freed += int64(len(p.b))
		}
	})
	im.released.Add(freed)
	return freed
}

// remapAnonymous replaces mapping b by anonymous read-only pages at the
// same addresses (MAP_FIXED): the file is no longer mapped.
func remapAnonymous(b []byte) error {
	_, _, errno := unix.Syscall6(unix.SYS_MMAP, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), unix.PROT_READ,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED, ^uintptr(0), 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// residentEvery is how often residentBytes measures again (reading
// /proc/self/pagemap: 8 bytes a 4 KiB page, ≈ 3 MB at 100M rows).
const residentEvery = time.Second

// residentBytes is the bytes of both mappings present in the process's
// memory (its resident set), measured at most every residentEvery.
func (im *tableImages) residentBytes() int64 {
	now := time.Now().UnixNano()
	if last := im.measured.Load(); last != 0 && now-last < int64(residentEvery) {
		return im.resident.Load()
	}
	im.measured.Store(now)
	var n int64
	for _, b := range im.mappings() {
		n += residentOf(b)
	}
	im.resident.Store(n)
	return n
}

// residentOf is the bytes of mapping b present in the process's page
// tables (its part of RSS), from /proc/self/pagemap's present bit: not
// mincore, which answers whether the file's pages are in the OS page
// cache, mapped here or not (a checkpoint just written is all there).
// Unknown (no pagemap) counts as all of it.
func residentOf(b []byte) int64 {
	if len(b) == 0 {
		return 0
	}
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return int64(len(b))
	}
	defer f.Close()
	ps := uintptr(os.Getpagesize())
	first := uintptr(unsafe.Pointer(&b[0])) / ps
	pages := (uintptr(len(b)) + ps - 1) / ps
	buf := make([]byte, 8*min(pages, 8192))
	var n int64
	for done := uintptr(0); done < pages; {
		k := min(pages-done, uintptr(len(buf)/8))
		if _, err := f.ReadAt(buf[:8*k], int64(8*(first+done))); err != nil {
			return int64(len(b))
		}
		for i := range k {
			if buf[8*i+7]&0x80 != 0 { // bit 63: present
				n++
			}
		}
		done += k
	}
	return n * int64(ps)
}

// evict drops the mappings' pages from the process's memory (they are
// clean and file-backed: the next touch reads them back, from the OS page
// cache or the file).
func (im *tableImages) evict() {
	for _, b := range im.mappings() {
		_ = unix.Madvise(b, unix.MADV_DONTNEED)
	}
	im.evicted.Add(1)
	im.resident.Store(0)
	im.measured.Store(time.Now().UnixNano())
}

// mappings is the parts' mappings not released.
func (im *tableImages) mappings() [][]byte {
	im.mu.Lock()
	defer im.mu.Unlock()
	var out [][]byte
	for _, p := range im.parts() {
		if !p.released && len(p.b) > 0 {
			out = append(out, p.b)
		}
	}
	return out
}

// mappedLen is the bytes of the parts' mappings not released.
func (im *tableImages) mappedLen() int64 {
	var n int64
	for _, b := range im.mappings() {
		n += int64(len(b))
	}
	return n
}
