// Package powercut simulates power cuts for crash tests through the
// store's Syncer seam (store.Options.Syncer).
//
// A kill -9 keeps the page cache: Badger's mapped value-log and
// memtable-WAL pages survive it whether or not they were fsynced, so a
// kill test cannot catch a missing or misplaced DB.Sync. A power cut
// loses every write after the last fsync. Syncer reproduces that: after
// each real sync it records the data directory's Badger files as they are
// at that moment (the durable image, taken consistently: retried while
// Badger's background flushes change the file set), and Restore, run
// once the process is dead, puts the image back in place of Badger's
// files. The result is the state of a machine that lost power right after
// the last sync: a state a real power cut can produce, since everything
// in it was fsynced (Badger syncs its tables and MANIFEST itself when it
// writes them), and one that holds nothing written after that sync.
//
// Files other than Badger's (the settled-LSN file, the lock) are left as
// they are: they are written and fsynced on paths of their own.
package powercut

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/dgraph-io/badger/v4"
	"golang.org/x/sys/unix"
)

// Syncer is a store.Syncer that records the durable image after every
// sync. Safe for concurrent use.
type Syncer struct {
	image string
	drop  bool
	mu    sync.Mutex
	syncs int
}

// New returns a Syncer that keeps its image in the directory image
// (created by the first Sync; its parent must exist). With drop, Sync
// does nothing at all (no fsync, no image): the "removed sync" with which
// a test shows that its checker notices the loss.
func New(image string, drop bool) *Syncer { return &Syncer{image: image, drop: drop} }

// Sync implements store.Syncer.
func (s *Syncer) Sync(bdb *badger.DB, dir string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drop {
		return nil
	}
	if err := bdb.Sync(); err != nil {
		return err
	}
	if err := Record(dir, s.image); err != nil {
		return fmt.Errorf("power-cut image: %w", err)
	}
	s.syncs++
	return nil
}

// Syncs returns how many images were recorded.
func (s *Syncer) Syncs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.syncs
}

// isBadgerFile reports whether name is one of the files Badger keeps in
// its directory.
func isBadgerFile(name string) bool {
	switch name {
	case "MANIFEST", "KEYREGISTRY", "DISCARD":
		return true
	}
	for _, ext := range []string{".vlog", ".mem", ".sst"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// copyOrder is the order Record copies files in: a file is copied after
// every file whose content may refer to it was (the MANIFEST names
// tables, memtable WALs and tables point into value logs), so writes made
// while the copy runs appear in the image only as a torn tail that
// Badger's replay cuts off, never as a dangling reference.
func copyOrder(name string) int {
	switch {
	case name == "KEYREGISTRY":
		return 0
	case name == "MANIFEST":
		return 1
	case strings.HasSuffix(name, ".mem"):
		return 2
	case strings.HasSuffix(name, ".sst"):
		return 3
	case strings.HasSuffix(name, ".vlog"):
		return 4
	}
	return 5 // DISCARD: value-log GC statistics only
}

// listing is the Badger files of a directory with their sizes.
type listing map[string]int64

func list(dir string) (listing, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	l := listing{}
	for _, e := range ents {
		if e.IsDir() || !isBadgerFile(e.Name()) {
			continue
		}
		fi, err := e.Info()
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		l[e.Name()] = fi.Size()
	}
	return l, nil
}

// stable reports whether two listings show no change Badger's background
// work makes: the same files, the same MANIFEST.
func stable(a, b listing) bool {
	return slices.Equal(slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b))) && a["MANIFEST"] == b["MANIFEST"]
}

// Record writes the durable image of dir's Badger files to image,
// replacing the previous one atomically (a process killed inside Record
// leaves the previous image, or the new one, whole). Tables and closed
// value logs already in the previous image are hard-linked, not copied:
// Badger never changes them.
func Record(dir, image string) error {
	tmp := image + ".tmp"
	for attempt := 0; ; attempt++ {
		if err := os.RemoveAll(tmp); err != nil {
			return err
		}
		if err := os.Mkdir(tmp, 0o700); err != nil {
			return err
		}
		before, err := list(dir)
		if err != nil {
			return err
		}
		prev, _ := list(image) // none on the first Record
		err = copyImage(dir, tmp, image, before, prev)
		after, lerr := list(dir)
		if err == nil && lerr == nil && stable(before, after) {
			break
		}
		if attempt == 50 {
			return fmt.Errorf("the files of %s kept changing during 50 copies (last: %v)", dir, errors.Join(err, lerr))
		}
	}
	old := image + ".old"
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	if err := os.Rename(image, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Rename(tmp, image); err != nil {
		return err
	}
	return os.RemoveAll(old)
}

func copyImage(dir, dst, prevDir string, files, prev listing) error {
	names := slices.SortedFunc(maps.Keys(files), func(a, b string) int {
		if d := copyOrder(a) - copyOrder(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	lastVlog := ""
	for _, n := range names {
		if strings.HasSuffix(n, ".vlog") {
			lastVlog = max(lastVlog, n) // fids are zero-padded: the newest sorts last
		}
	}
	for _, n := range names {
		closed := strings.HasSuffix(n, ".sst") || (strings.HasSuffix(n, ".vlog") && n != lastVlog)
		if size, ok := prev[n]; ok && closed && size == files[n] {
			if err := os.Link(filepath.Join(prevDir, n), filepath.Join(dst, n)); err == nil {
				continue
			}
		}
		if err := copySparse(filepath.Join(dir, n), filepath.Join(dst, n)); err != nil {
			return err
		}
	}
	return nil
}

// copySparse copies a file's data extents only: Badger preallocates its
// mapped logs (a value log at twice its size limit), mostly holes.
func copySparse(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	size := fi.Size()
	if err := out.Truncate(size); err != nil {
		return err
	}
	fd := int(in.Fd())
	for off := int64(0); off < size; {
		start, err := unix.Seek(fd, off, unix.SEEK_DATA)
		if errors.Is(err, unix.ENXIO) {
			break // only a hole is left
		}
		if err != nil {
			return fmt.Errorf("%s: seek data: %w", src, err)
		}
		end, err := unix.Seek(fd, start, unix.SEEK_HOLE)
		if err != nil {
			return fmt.Errorf("%s: seek hole: %w", src, err)
		}
		end = min(end, size)
		if _, err := io.Copy(io.NewOffsetWriter(out, start), io.NewSectionReader(in, start, end-start)); err != nil {
			return fmt.Errorf("copy %s: %w", src, err)
		}
		off = end
	}
	return out.Close()
}

// Restore cuts the power of the data directory dir whose process is
// dead: its Badger files are replaced by the image the Syncer recorded
// at the last sync (none recorded: removed, as an unsynced new directory
// loses them). It returns how many files the image held.
func Restore(dir, image string) (int, error) {
	src := image
	if _, err := os.Stat(src); errors.Is(err, os.ErrNotExist) {
		src = image + ".old" // killed between Record's two renames
	}
	cur, err := list(dir)
	if err != nil {
		return 0, fmt.Errorf("restore %s: %w", dir, err)
	}
	for n := range cur {
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			return 0, fmt.Errorf("restore %s: %w", dir, err)
		}
	}
	img, err := list(src)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("restore %s: %w", dir, err)
	}
	for n := range img {
		if err := copySparse(filepath.Join(src, n), filepath.Join(dir, n)); err != nil {
			return 0, fmt.Errorf("restore %s: %w", dir, err)
		}
	}
	return len(img), nil
}
