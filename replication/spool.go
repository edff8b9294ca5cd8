package replication

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Spool holds the chunks of in-progress transactions that PostgreSQL
// streams before they commit (pgoutput streaming), until Stream Commit
// replays them or Stream Abort discards them. Messages are kept as raw
// pgoutput bytes and decoded at replay. A Spool is used from one goroutine.
//
// The mirror may supply its own (for example in Badger); [DiskSpool] keeps
// them in files.
type Spool interface {
	// Append files msg under the top-level transaction xid; sub is the xid
	// of the (sub)transaction that made it (sub == xid for the top level).
	// msg is only valid during the call.
	Append(xid, sub uint32, msg []byte) error
	// Abort discards the messages of subtransaction sub of xid, or all of
	// xid when sub == xid.
	Abort(xid, sub uint32) error
	// Replay calls fn with each message of xid that was not discarded, in
	// Append order, then forgets xid. msg is only valid during fn. Replay
	// of an unknown xid calls nothing (a transaction may stream no change
	// of a published table).
	Replay(xid uint32, fn func(msg []byte) error) error
	// Discard forgets xid.
	Discard(xid uint32) error
	// Reset forgets every transaction: after a reconnect the server sends
	// in-progress transactions again from their start.
	Reset() error
	// Close releases the spool's resources.
	Close() error
}

// DiskSpool is a [Spool] with one append-only file per streamed
// transaction in a private directory. Memory use is one write buffer per
// open transaction, whatever the transaction's size.
type DiskSpool struct {
	dir     string
	ownsDir bool
	txns    map[uint32]*spoolFile
}

type spoolFile struct {
	f       *os.File
	w       *bufio.Writer
	aborted map[uint32]struct{}
	n       int64 // messages appended
}

const spoolBufSize = 256 << 10

const (
	spoolPrefix   = "sidecar-spool-"
	spoolOwnerPID = "owner.pid"
)

// NewDiskSpool creates a spool in a fresh directory under parent (the
// system temporary directory when parent is ""). Close removes it. Spool
// directories left under parent by processes that died without closing
// theirs (SIGKILL, OOM) are removed first: a streamed transaction can
// leave gigabytes behind.
func NewDiskSpool(parent string) (*DiskSpool, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	sweepSpools(parent)
	dir, err := os.MkdirTemp(parent, spoolPrefix)
	if err != nil {
		return nil, fmt.Errorf("create spool directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, spoolOwnerPID), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("create spool directory: %w", err)
	}
	return &DiskSpool{dir: dir, ownsDir: true, txns: map[uint32]*spoolFile{}}, nil
}

// sweepSpools removes spool directories whose owner process is gone.
// Errors are ignored: sweeping is best effort and never blocks startup.
func sweepSpools(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), spoolPrefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, spoolOwnerPID))
		if err != nil {
			continue // not ours to judge (or being created right now)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		os.RemoveAll(dir)
	}
}

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func (s *DiskSpool) file(xid uint32) (*spoolFile, error) {
	if sf := s.txns[xid]; sf != nil {
		return sf, nil
	}
	f, err := os.OpenFile(filepath.Join(s.dir, fmt.Sprintf("xid-%d", xid)), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("spool xid %d: %w", xid, err)
	}
	sf := &spoolFile{f: f, w: bufio.NewWriterSize(f, spoolBufSize), aborted: map[uint32]struct{}{}}
	s.txns[xid] = sf
	return sf, nil
}

// Append implements [Spool].
func (s *DiskSpool) Append(xid, sub uint32, msg []byte) error {
	sf, err := s.file(xid)
	if err != nil {
		return err
	}
	var hdr [8]byte
	binary.BigEndian.PutUint32(hdr[:4], sub)
	binary.BigEndian.PutUint32(hdr[4:], uint32(len(msg)))
	if _, err := sf.w.Write(hdr[:]); err != nil {
		return fmt.Errorf("spool xid %d: %w", xid, err)
	}
	if _, err := sf.w.Write(msg); err != nil {
		return fmt.Errorf("spool xid %d: %w", xid, err)
	}
	sf.n++
	return nil
}

// Abort implements [Spool].
func (s *DiskSpool) Abort(xid, sub uint32) error {
	if xid == sub {
		return s.Discard(xid)
	}
	if sf := s.txns[xid]; sf != nil {
		// Subtransaction ids are never reused inside their top-level
		// transaction, so marking it is enough: Replay skips its records.
		sf.aborted[sub] = struct{}{}
	}
	return nil
}

// Replay implements [Spool].
func (s *DiskSpool) Replay(xid uint32, fn func(msg []byte) error) error {
	if s.txns[xid] == nil {
		return nil
	}
	defer s.Discard(xid) //nolint:errcheck // the replay error, if any, is the one that matters
	return s.Scan(xid, func(_ uint32, msg []byte) error { return fn(msg) })
}

// Scan calls fn with each message of xid that was not discarded and the
// (sub)transaction that made it, in Append order, and keeps xid. msg is
// only valid during fn.
func (s *DiskSpool) Scan(xid uint32, fn func(sub uint32, msg []byte) error) error {
	_, err := s.ScanFrom(xid, SpoolPos{}, -1, fn)
	return err
}

// SpoolPos is a position in one transaction's spool: records before it
// and their bytes.
type SpoolPos struct{ Records, Offset int64 }

// ScanFrom is Scan from position from, for at most max records (all when
// max < 0), including discarded ones it skips; it returns the position
// after the last record read. Appends go on after it: the stream applies
// a transaction ahead from its spool while more of it arrives ([Scanner]).
func (s *DiskSpool) ScanFrom(xid uint32, from SpoolPos, max int, fn func(sub uint32, msg []byte) error) (SpoolPos, error) {
	sf := s.txns[xid]
	if sf == nil || from.Records >= sf.n {
		return from, nil
	}
	if err := sf.w.Flush(); err != nil {
		return from, fmt.Errorf("spool xid %d: flush: %w", xid, err)
	}
	if _, err := sf.f.Seek(from.Offset, io.SeekStart); err != nil {
		return from, fmt.Errorf("spool xid %d: seek: %w", xid, err)
	}
	// Appends go on at the end of the file after the scan.
	defer sf.f.Seek(0, io.SeekEnd) //nolint:errcheck // the next Append's write reports a broken file
	r := bufio.NewReaderSize(sf.f, spoolBufSize)
	var hdr [8]byte
	var buf []byte
	pos := from
	for ; pos.Records < sf.n && (max < 0 || pos.Records < from.Records+int64(max)); pos.Records++ {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return pos, fmt.Errorf("spool xid %d: read record %d of %d: %w", xid, pos.Records, sf.n, err)
		}
		sub := binary.BigEndian.Uint32(hdr[:4])
		n := int(binary.BigEndian.Uint32(hdr[4:]))
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(r, buf); err != nil {
			return pos, fmt.Errorf("spool xid %d: read record %d of %d: %w", xid, pos.Records, sf.n, err)
		}
		pos.Offset += int64(len(hdr) + n)
		if _, gone := sf.aborted[sub]; gone {
			continue
		}
		if err := fn(sub, buf); err != nil {
			pos.Records++
			return pos, err
		}
	}
	return pos, nil
}

// Scanner is an optional extension of a [Spool]: ScanFrom reads a
// transaction's messages from a position without forgetting it.
type Scanner interface {
	ScanFrom(xid uint32, from SpoolPos, max int, fn func(sub uint32, msg []byte) error) (SpoolPos, error)
}

// Discard implements [Spool].
func (s *DiskSpool) Discard(xid uint32) error {
	sf := s.txns[xid]
	if sf == nil {
		return nil
	}
	delete(s.txns, xid)
	err := sf.f.Close()
	if rmErr := os.Remove(sf.f.Name()); rmErr != nil && err == nil {
		err = rmErr
	}
	if err != nil {
		return fmt.Errorf("spool xid %d: discard: %w", xid, err)
	}
	return nil
}

// Reset implements [Spool].
func (s *DiskSpool) Reset() error {
	var errs []error
	for xid := range s.txns {
		errs = append(errs, s.Discard(xid))
	}
	return errors.Join(errs...)
}

// Close implements [Spool]: it discards everything and removes the
// directory.
func (s *DiskSpool) Close() error {
	err := s.Reset()
	if s.ownsDir {
		err = errors.Join(err, os.RemoveAll(s.dir))
	}
	return err
}

// Open reports how many transactions are spooled (for metrics and tests).
func (s *DiskSpool) Open() int { return len(s.txns) }
