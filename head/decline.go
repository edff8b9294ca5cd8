// A table the model declines (issue 21, s27 item 1): a REPLICA IDENTITY
// FULL table's key is its whole row, and the radix index takes keys of
// at most radixindex.MaxKeyLen (1 MiB). One such row used to fail the
// whole model — a copy's build, or an apply that made the model unusable
// — so that every table's reads went to the trees and the daemon rebuilt
// every table, failing again, each minute while the row existed. Now
// only that table is declined: it leaves the model (its reads go to its
// tree, which takes any key, so the answers are the same), the other
// tables stay served, and the declined table is asked for again (sent
// whole by the mirror: mirror.Resender) only once no key too long for the
// index is left in it — which the model knows by following the table's
// long keys (their digests) through its batches.

package head

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/radixindex"
	"github.com/sidecar-dev/sidecar/wal"
)

var _ mirror.Resender = (*Model)(nil)

// keyTooLongError is the failure of a row whose key (a REPLICA IDENTITY
// FULL table's whole row) is longer than the in-memory HEAD's index
// takes: the model declines that table, and its reads go to its tree.
type keyTooLongError struct{ n int }

func (e *keyTooLongError) Error() string {
	return fmt.Sprintf("a row's key of %d bytes is longer than the in-memory HEAD takes (%d bytes; a REPLICA IDENTITY FULL table's key is its whole row)", e.n, radixindex.MaxKeyLen)
}

// keyTooLong is a keyTooLongError of a key of n bytes.
func keyTooLong(n int) error { return &keyTooLongError{n: n} }

// isKeyTooLong reports whether err is (or wraps) a keyTooLongError.
func isKeyTooLong(err error) bool {
	var k *keyTooLongError
	return errors.As(err, &k)
}

// declinedTable is a table the model does not hold: the digests of the
// keys too long for the index that the table holds as of the model's
// version. Once none is left the model asks for the table again.
type declinedTable struct {
	long   map[[sha256.Size]byte]struct{} // under the model's wmu only
	reason string
	since  wal.LSN
	// longRows is len(long) for readers holding only the model's mu
	// (Declined, the status), set after each follow.
	longRows atomic.Int64
}

// Declined returns the tables the model declines (their reads go to the
// trees), sorted, each with why.
func (m *Model) Declined() []DeclinedTable {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]DeclinedTable, 0, len(m.declined))
	for name, d := range m.declined {
		out = append(out, DeclinedTable{Table: name, Reason: d.reason, Since: d.since.String(), LongRows: int(d.longRows.Load())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Table < out[j].Table })
	return out
}

// DeclinedTable describes a table the model declines (status).
type DeclinedTable struct {
	Table    string `json:"table"`
	Reason   string `json:"reason"`
	Since    string `json:"since"`     // the version it was declined at
	LongRows int    `json:"long_rows"` // rows whose key the index cannot take
}

// TakeResends implements mirror.Resender: the tables declined before
// that hold no key too long any more, to be sent whole (once each).
func (m *Model) TakeResends() []string {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	r := m.resend
	m.resend = nil
	return r
}

// decline takes table out of the model at lsn: old (nil: none) is
// retired, the table is forgotten by Durable (a new subscription, or a
// restore, gets it whole), and the digests of its long keys are taken
// from rows (the table's rows after the batch: every row for a reset,
// the batch's edits for a table the model held, which had none).
// Called under wmu.
func (m *Model) decline(ctx context.Context, name string, old *Table, why error, lsn wal.LSN, rows func(context.Context, func(prolly.Edit) error) error) error {
	d := &declinedTable{long: map[[sha256.Size]byte]struct{}{}, reason: why.Error(), since: lsn}
	if err := d.follow(ctx, rows); err != nil {
		return fmt.Errorf("read the declined table's long keys: %w", err)
	}
	if old != nil {
		old.retired.Store(true) // before applied moves: see servable
		old.dropPast()
		old.charge.Set(0)
	}
	m.mu.Lock()
	delete(m.tables, name)
	m.declined[name] = d
	m.mu.Unlock()
	delete(m.copied, name)
	m.resend = slices.DeleteFunc(m.resend, func(s string) bool { return s == name })
	if p := m.opts.Persist; p != nil && p.Logger != nil {
		p.Logger.Warn("in-memory HEAD declines a table: its reads are served from its tree; the other tables stay in the HEAD",
			"table", name, "why", why, "long_rows", len(d.long), "lsn", lsn)
	}
	if len(d.long) == 0 {
		// A key too long met in a batch that also deleted it (or none
		// left after all): ask for the table again at once.
		m.rejoin(name)
	}
	return nil
}

// followDeclined brings a declined table's long keys forward by a
// batch's edits; once none is left the table is asked for again. Called
// under wmu.
func (m *Model) followDeclined(ctx context.Context, name string, d *declinedTable, tb *mirror.TableBatch) error {
	if err := d.follow(ctx, tb.Edits); err != nil {
		return err
	}
	if len(d.long) == 0 {
		m.rejoin(name)
	}
	return nil
}

// rejoin forgets a declined table whose keys all fit the index again and
// queues it for the mirror to send whole (TakeResends). Under wmu.
func (m *Model) rejoin(name string) {
	m.mu.Lock()
	delete(m.declined, name)
	m.mu.Unlock()
	if !slices.Contains(m.resend, name) {
		m.resend = append(m.resend, name)
	}
	if p := m.opts.Persist; p != nil && p.Logger != nil {
		p.Logger.Info("a table the in-memory HEAD declined holds no key too long any more; it is read into the HEAD again", "table", name)
	}
}

// follow applies edits to the set of long keys: a long key written is
// in it, a long key deleted is not. Under the model's wmu.
func (d *declinedTable) follow(ctx context.Context, edits func(context.Context, func(prolly.Edit) error) error) error {
	defer func() { d.longRows.Store(int64(len(d.long))) }()
	return edits(ctx, func(e prolly.Edit) error {
		if len(e.Key) <= radixindex.MaxKeyLen {
			return nil
		}
		h := sha256.Sum256(e.Key)
		if e.Delete {
			delete(d.long, h)
		} else {
			d.long[h] = struct{}{}
		}
		return nil
	})
}
