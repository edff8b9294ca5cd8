package follow

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sidecar-dev/sidecar/wal"
)

// SettledFile, in the data directory, holds the LSN up to which the
// stream acknowledged an idle slot past the mirror's last commit
// (wal.Settler): written and synced before that acknowledgement
// is sent, so a start can tell such a slot from one another consumer
// moved on (ErrForeignSlot).
const SettledFile = "settled-lsn"

// settlingSink adds wal.Settler to a Sink.
type settlingSink struct {
	wal.Sink
	dir     string
	mu      sync.Mutex
	settled wal.LSN // the last LSN recorded, under mu
}

// Settle implements wal.Settler. The stream's status sender calls
// it; it is safe for any caller.
func (s *settlingSink) Settle(lsn wal.LSN) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if lsn <= s.settled {
		return nil
	}
	// A sink that must record it elsewhere first (remote.sync_ack).
	if inner, ok := s.Sink.(wal.Settler); ok {
		if err := inner.Settle(lsn); err != nil {
			return err
		}
	}
	path := filepath.Join(s.dir, SettledFile)
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err == nil {
		_, err = f.WriteString(lsn.String() + "\n")
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("record the settled LSN %s: %w", lsn, err)
	}
	s.settled = lsn
	return nil
}

// ReadSettled returns the LSN recorded in dir's SettledFile (0 if none).
func ReadSettled(dir string) wal.LSN {
	b, err := os.ReadFile(filepath.Join(dir, SettledFile))
	if err != nil {
		return 0
	}
	l, err := wal.ParseLSN(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return l
}
