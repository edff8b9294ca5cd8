package follow

import (
	"context"
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
// (wal.Settler), and the mirror's durable LSN when it did: written and
// synced before that acknowledgement is sent, so a start can tell such a
// slot from one another consumer moved on, and from a mirror that lost
// writes it had reported durable (both ErrForeignSlot).
const SettledFile = "settled-lsn"

// Settled is what SettledFile records.
type Settled struct {
	// LSN: the stream acknowledged the slot up to here with nothing
	// received unapplied.
	LSN wal.LSN
	// Base: the mirror's durable LSN when it did (0 in files written
	// before it was recorded). The acknowledgement is sound only while
	// the mirror still holds Base: one durable below it lost writes it
	// had synced, and the changes between are gone from the slot too.
	Base wal.LSN
}

// settlingSink adds wal.Settler to a Sink.
type settlingSink struct {
	wal.Sink
	dir string
	// reach, when set, is told each settled LSN: the stream has
	// delivered every commit below it with none open (streamReacher).
	reach   func(wal.LSN) error
	mu      sync.Mutex
	settled wal.LSN // the last LSN recorded, under mu
}

// streamReacher is a Target that lands a resync's copy once the stream
// has passed the copy's LSN (mirror.Mirror.StreamReached). An idle
// stream passes it only by the server's keepalives, which the stream's
// settling of an idle slot reports: on a standby, where a resync cannot
// write its marker, that is what lands the copy while nothing commits.
type streamReacher interface {
	StreamReached(ctx context.Context, lsn wal.LSN) error
}

// Unwrap returns the wrapped sink (replication looks for optional
// extensions such as its PendingSink through it).
func (s *settlingSink) Unwrap() wal.Sink { return s.Sink }

// Settle implements wal.Settler. The stream's status sender calls
// it; it is safe for any caller.
func (s *settlingSink) Settle(lsn wal.LSN) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if lsn <= s.settled {
		// Recorded already (by an earlier session): the stream still
		// reached it.
		return s.reached(lsn)
	}
	// A sink that must record it elsewhere first (remote.sync_ack).
	if inner, ok := s.Sink.(wal.Settler); ok {
		if err := inner.Settle(lsn); err != nil {
			return err
		}
	}
	var base wal.LSN
	if s.Sink != nil {
		base = s.Sink.Durable()
	}
	if err := WriteSettled(s.dir, Settled{LSN: lsn, Base: base}); err != nil {
		return err
	}
	s.settled = lsn
	return s.reached(lsn)
}

// reached passes a settled LSN on to reach. The caller holds mu.
func (s *settlingSink) reached(lsn wal.LSN) error {
	if s.reach == nil {
		return nil
	}
	if err := s.reach(lsn); err != nil {
		return fmt.Errorf("stream reached %s: %w", lsn, err)
	}
	return nil
}

// WriteSettled records st in dir's SettledFile, durably: a crash after
// it returns still finds st there (a restore from the remote writes it
// too, before the first start).
func WriteSettled(dir string, st Settled) error {
	body := st.LSN.String() + " " + st.Base.String() + "\n"
	if err := durable.WriteFile(filepath.Join(dir, SettledFile), []byte(body), 0o600); err != nil {
		return fmt.Errorf("record the settled LSN %s: %w", st.LSN, err)
	}
	return nil
}

// ReadSettled returns what dir's SettledFile records (zero if there is
// none or it is damaged: the start's check is then the durable LSN
// alone, which is stricter). A file of one LSN (written before Base was
// recorded) reads with Base 0.
func ReadSettled(dir string) Settled {
	b, err := os.ReadFile(filepath.Join(dir, SettledFile))
	if err != nil {
		return Settled{}
	}
	f := strings.Fields(string(b))
	if len(f) < 1 || len(f) > 2 {
		return Settled{}
	}
	var st Settled
	if st.LSN, err = wal.ParseLSN(f[0]); err != nil {
		return Settled{}
	}
	if len(f) == 2 {
		if st.Base, err = wal.ParseLSN(f[1]); err != nil {
			return Settled{}
		}
	}
	return st
}

// slotCovered says whether a mirror durable up to durable, with st
// recorded, holds everything its slot confirmed (confirmed): the slot
// may be ahead of durable only up to st.LSN, and only if the mirror
// still holds st.Base. The error wraps ErrForeignSlot.
func slotCovered(slot, dir string, confirmed, durable wal.LSN, st Settled) error {
	if confirmed <= durable || st.LSN != 0 && durable >= st.Base && confirmed <= st.LSN {
		return nil
	}
	if st.LSN != 0 && durable < st.Base && confirmed <= st.LSN {
		return fmt.Errorf("%w: slot %q has confirmed_flush_lsn %s, acknowledged while the mirror in data_dir %s was durable up to %s (%s), "+
			"but the mirror is durable only up to %s now: writes it had synced are gone (a disk or filesystem that does not honour fsync, "+
			"or a data_dir restored from an older copy), and the changes between are not in the slot any more; "+
			"start over with `sidecar run --resync` (drops the slot and copies every table again)",
			ErrForeignSlot, slot, confirmed, dir, st.Base, SettledFile, durable)
	}
	known := durable
	if st.LSN != 0 {
		known = max(known, st.LSN)
	}
	return fmt.Errorf("%w: slot %q has confirmed_flush_lsn %s, but the mirror in data_dir %s is durable only up to %s: "+
		"the changes between were acknowledged to another consumer of the slot (another data_dir, a restored backup?) and are not in the slot any more; "+
		"start over with `sidecar run --resync` (drops the slot and copies every table again)",
		ErrForeignSlot, slot, confirmed, dir, known)
}
