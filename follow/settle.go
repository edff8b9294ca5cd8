package follow

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sidecar-dev/sidecar/internal/durable"
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
	if err := WriteSettled(s.dir, lsn); err != nil {
		return err
	}
	s.settled = lsn
	return nil
}

// WriteSettled records lsn in dir's SettledFile, durably: a crash after
// it returns still finds lsn there (a restore from the remote writes it
// too, before the first start).
func WriteSettled(dir string, lsn wal.LSN) error {
	if err := durable.WriteFile(filepath.Join(dir, SettledFile), []byte(lsn.String()+"\n"), 0o600); err != nil {
		return fmt.Errorf("record the settled LSN %s: %w", lsn, err)
	}
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
