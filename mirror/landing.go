// The landing of a resync's copy (issue 21): where in history a copy
// taken under a snapshot at LSN C becomes the table's tree.
//
// A resync copies a table under a fresh snapshot whose consistent point C
// can be past the last commit the mirror took: the stream lags, or does
// not run yet (a resync at start runs before it). The copy then holds
// the commits below C that the mirror has not taken. Recording it at the
// head's last version (as TableCopied did before) made that version, and
// the commits between it and C replayed later, read rows committed after
// them. So the copy is held (recorded: a crash leaves it held at the next
// start, heldcopy.go) until the mirror has taken every commit below C: the stream delivers commits in LSN order, so that is when a commit
// ending at or past C is taken, a transaction committing at or past C
// begins, or the stream starts at or past C. It then lands at
// L = max(C, the head): as a version of its own at C (Version.Resynced,
// no commit) when the head is below C, else at the head, whose state of
// the table it is (the copy plus the changes held since C).
//
// Between the table's ResyncFrom (the last version whose state of the
// table the mirror holds) and L, the table's changes were held or
// dropped as part of the copy: those versions have no per-commit state
// of the table, and reads of it there are refused (ResyncWindowError),
// never answered with the old tree or the copy. The window is recorded
// ('c' 'w' name L → from, C) in the landing's Badger transaction; while
// the table waits (state resync_needed) the window is open-ended.

package mirror

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// ErrResyncWindow is wrapped by errors about reading a table at a
// version inside one of its resync windows (ResyncWindowError).
var ErrResyncWindow = errors.New("no per-commit history of the table at this version (resync window)")

// ResyncWindowError refuses a read of Table at Version: the table was
// being resynced then, its changes after version From held or contained
// in the copy, which landed at version To (0: not landed yet).
type ResyncWindowError struct {
	Table   string
	Version wal.LSN
	From    wal.LSN
	To      wal.LSN
}

func (e *ResyncWindowError) Error() string {
	landed := "its copy has not landed yet"
	if e.To != 0 {
		landed = fmt.Sprintf("its copy landed at version %s", e.To)
	}
	if e.From == 0 {
		// Resynced before the first version: its state is the initial
		// copy's, read below the first version.
		return fmt.Sprintf("table %s has no per-commit history at version %s: it was being resynced (its changes after its initial copy were held for the resync's copy; %s); read it before the first version, or at the landing or later",
			e.Table, e.Version, landed)
	}
	return fmt.Sprintf("table %s has no per-commit history at version %s: it was being resynced (its changes after version %s were held for the resync's copy; %s); read it at version %s or earlier, or at the landing or later",
		e.Table, e.Version, e.From, landed, e.From)
}

// Is makes errors.Is(err, ErrResyncWindow) hold.
func (e *ResyncWindowError) Is(target error) bool { return target == ErrResyncWindow }

// SQLState is the code the SQL port answers with: 55000
// (object_not_in_prerequisite_state), the table's state at that version
// is not held.
func (e *ResyncWindowError) SQLState() string { return "55000" }

// resyncWindow is a closed window: versions with from < end LSN < to
// have no state of the table; to is where the copy taken at at landed.
type resyncWindow struct {
	from, to, at wal.LSN
}

func winPrefix(table string) []byte {
	k := append([]byte{store.PrefixCatalog, subWin}, table...)
	return append(k, 0)
}

func winKey(table string, to wal.LSN) []byte {
	return binary.BigEndian.AppendUint64(winPrefix(table), uint64(to))
}

func (w resyncWindow) encode() []byte {
	e := enc{}
	e.byte(recVersion)
	e.uvarint(uint64(w.from))
	e.uvarint(uint64(w.at))
	return e.b
}

// loadWindows reads every table's resync windows (Open).
func (m *Mirror) loadWindows(txn *badger.Txn) error {
	prefix := []byte{store.PrefixCatalog, subWin}
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		k := it.Item().Key()
		if len(k) < len(prefix)+1+8 || k[len(k)-9] != 0 {
			return fmt.Errorf("%w: resync window key %x", errCorrupt, k)
		}
		name := string(k[len(prefix) : len(k)-9])
		w := resyncWindow{to: wal.LSN(binary.BigEndian.Uint64(k[len(k)-8:]))}
		if err := it.Item().Value(func(v []byte) error {
			d := dec{b: v}
			if ver := d.byte(); ver != recVersion && d.err == nil {
				return fmt.Errorf("%w: resync window record version %d", errCorrupt, ver)
			}
			w.from, w.at = wal.LSN(d.uvarint()), wal.LSN(d.uvarint())
			return d.done("resync window")
		}); err != nil {
			return err
		}
		if m.windows == nil {
			m.windows = map[string][]resyncWindow{}
		}
		m.windows[name] = append(m.windows[name], w)
	}
	return nil
}

// Readable returns a *ResyncWindowError when table has no state at the
// version ending at v (inside a resync window), else nil. Readers that
// do not go through TreeAt (the in-memory HEAD) ask it first.
func (m *Mirror) Readable(table string, v wal.LSN) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.readableLocked(table, v)
}

func (m *Mirror) readableLocked(table string, v wal.LSN) error {
	if t := m.tables[table]; t != nil && t.rec.State == StateResyncNeeded && v > t.rec.ResyncFrom {
		return &ResyncWindowError{Table: table, Version: v, From: t.rec.ResyncFrom}
	}
	for _, w := range m.windows[table] {
		if w.from < v && v < w.to {
			return &ResyncWindowError{Table: table, Version: v, From: w.from, To: w.to}
		}
	}
	return nil
}

// landedAt returns where the copy at copiedAt of table landed (copiedAt
// itself for a copy with no window: the initial copy). The caller holds
// mu.
func (m *Mirror) landedAt(table string, copiedAt wal.LSN) wal.LSN {
	for _, w := range m.windows[table] {
		if w.at == copiedAt {
			return w.to
		}
	}
	return copiedAt
}

// heldCopy is a table's copy, built and flushed to the node store by
// TableCopied, waiting for the mirror to reach its LSN.
type heldCopy struct {
	name string
	rel  *wal.Relation
	root prolly.Root // as built (no held change applied)
	at   wal.LSN
	rows int64
	// started is when the copy began (Busy).
	started time.Time
	// bs are the consumers' builds from the copy's rows; discarded when
	// the copy has to wait (they would read the tree whole at landing).
	bs copyBuilds
}

// landingRoots returns the held copies' roots, for a GC. The caller
// holds mu.
func (m *Mirror) landingRoots() []prolly.Root {
	var out []prolly.Root
	for _, hc := range m.landing {
		out = append(out, hc.root)
	}
	return out
}

// waitingLanding reports whether name's copy waits to land. The caller
// holds mu.
func (m *Mirror) waitingLanding(name string) bool { return m.landing[name] != nil }

// landDue lands the held copies whose LSN the mirror has reached: every
// commit below it taken (reached: the last commit taken, the stream's
// start, or the commit LSN of a transaction beginning now). An initial
// copy (firstCopy) lands at once, at the latest group, as it always did.
// The caller holds mu, with no transaction open.
func (m *Mirror) landDue(ctx context.Context, reached wal.LSN) error {
	if len(m.landing) == 0 {
		return nil
	}
	reached = max(reached, m.lastEnd, m.resume, m.reached)
	var due []*heldCopy
	initial := map[string]bool{}
	for _, hc := range m.landing {
		if m.firstCopy(hc.name) {
			initial[hc.name] = true
			due = append(due, hc)
		} else if hc.at <= reached {
			due = append(due, hc)
		}
	}
	if len(due) == 0 {
		return nil
	}
	slices.SortFunc(due, func(a, b *heldCopy) int { return strings.Compare(a.name, b.name) })
	for _, hc := range due {
		delete(m.landing, hc.name)
	}
	defer func() {
		for _, hc := range due {
			hc.bs.discard()
		}
	}()
	// The group's pending edits were made against the old trees; flush
	// them so history up to now keeps them, then replace the trees.
	if err := m.flushGroup(ctx); err != nil {
		m.failLocked(err)
		return err
	}
	// Held changes of committed transactions must be readable.
	if err := m.drain(); err != nil {
		return fmt.Errorf("land copies: %w", err)
	}
	end := max(m.lastGroup, m.head.EndLSN)
	resynced := false
	for _, hc := range due {
		if !initial[hc.name] {
			end, resynced = max(end, hc.at), true
		}
	}
	newVersion := resynced && end > m.head.EndLSN
	recs := map[string]tableRecord{}
	for tn, tt := range m.tables {
		recs[tn] = tt.rec
	}
	op := &writeOp{sync: true}
	landed := map[string]landedTable{}
	var names []string
	for _, hc := range due {
		lt, err := m.landOne(ctx, hc, end, initial[hc.name], op)
		if err != nil {
			return err
		}
		landed[hc.name] = lt
		recs[hc.name] = lt.t.rec
		names = append(names, hc.name)
	}
	// INVARIANT: the group record at the landing names the copied roots,
	// in the same Badger transaction as the table records that make them
	// ready (and the landing version's log record, when it is one).
	m.groupOp(end, recs, op)
	var v Version
	ord := m.ordinal
	if newVersion {
		v = Version{EndLSN: end, CommitLSN: end, CommitTime: m.lastTime, Resynced: names}
		op.set(logKey(end), encodeLog(&v, nil))
		ord++
		if !m.noOrd {
			op.set(ordKey(ord), binary.BigEndian.AppendUint64(nil, uint64(end)))
		}
		if end > m.lastEnd {
			// Reached through the stream's start (the resume LSN): the
			// durable LSN names the landing, so Open finds it at or
			// below it.
			d := enc{}
			d.uvarint(uint64(end))
			op.set(keyDurable, d.b)
		}
		op.head = &v
	}
	if err := m.enqueueWait(op); err != nil {
		return fmt.Errorf("land copies of %s at %s: %w", strings.Join(names, ", "), end, err)
	}
	for _, hc := range due {
		lt := landed[hc.name]
		m.tables[hc.name] = lt.t
		if lt.window != nil {
			if m.windows == nil {
				m.windows = map[string][]resyncWindow{}
			}
			m.windows[hc.name] = append(m.windows[hc.name], *lt.window)
		}
	}
	m.lastGroup = end
	if newVersion {
		if end > m.lastEnd {
			// The op that named it durable is synced (op.sync).
			m.written.Store(max(m.written.Load(), uint64(end)))
			m.durable.Store(max(m.durable.Load(), uint64(end)))
			m.subs.durableMoved()
		}
		m.head, m.ordinal, m.lastEnd = v, ord, max(m.lastEnd, end)
	}
	for _, hc := range due {
		nt := landed[hc.name].t
		if nt.rec.Root != hc.root {
			// Held changes were applied to the copy: the consumers read
			// the recorded tree whole (the built root's own nodes are
			// not kept).
			hc.bs.discard()
		}
		m.publishReset(end, nt.rec, hc.bs)
		if m.opts.CopiedAt != nil {
			m.opts.CopiedAt.Set(hc.name, hc.at)
		}
		what := "resync copy landed"
		if initial[hc.name] {
			what = "initial copy landed"
		}
		m.log.Info(what, "table", hc.name, "copied_at", hc.at, "version", end, "own_version", newVersion, "rows", nt.rec.Rows)
	}
	return nil
}

// firstCopy reports whether name's copy is an initial one: the mirror
// has no version yet and holds no state of the table (not copied before,
// nor followed while running). With no version there is none the copy
// could land over (a resume LSN set by an earlier table's initial copy
// included), so it lands at once. A resync of a table the mirror holds
// (even before the first commit after the initial copy) is held like any
// other: landing it at once would put it in the group record the initial
// copy's state is read from. The caller holds mu.
func (m *Mirror) firstCopy(name string) bool {
	return m.head.EndLSN == 0 && m.tables[name] == nil && m.pending[name] == nil
}

// landedTable is a table's state after its landing, and the window the
// landing closes (nil: none, the initial copy).
type landedTable struct {
	t      *table
	window *resyncWindow
}

// landOne builds hc's table state at the landing end: the copy with the
// held changes committed at or after its LSN applied, and queues its
// relation and window records on op. The caller holds mu.
func (m *Mirror) landOne(ctx context.Context, hc *heldCopy, end wal.LSN, initial bool, op *writeOp) (landedTable, error) {
	name, rel := hc.name, hc.rel
	t := m.tables[name]
	if t != nil {
		rel = withEnumHistory(rel, t.rec.Rel) // a resync keeps the enum label history (catfacts_enumhistory.go)
	}
	// The window starts at the last version holding the table's state:
	// its ResyncFrom (a table followed while running: when it was).
	var window *resyncWindow
	if !initial {
		if t != nil && t.rec.State == StateResyncNeeded {
			window = &resyncWindow{from: t.rec.ResyncFrom, to: end, at: hc.at}
		} else if p := m.pending[name]; p != nil {
			window = &resyncWindow{from: p.rec.ResyncFrom, to: end, at: hc.at}
		}
		if window != nil && window.from >= end {
			window = nil // no version between
		}
	}
	if t == nil {
		var err error
		if t, err = newTable(tableRecord{Name: name, Rel: rel}); err != nil {
			return landedTable{}, fmt.Errorf("copy %s: %w", name, err)
		}
	}
	rec := tableRecord{Name: name, State: StateReady, CopiedAt: hc.at, Rel: rel}
	nt, err := newTable(rec)
	if err != nil {
		return landedTable{}, fmt.Errorf("copy %s: %w", name, err)
	}
	nt.latest, nt.latestAt = t.latest, t.latestAt
	root := hc.root
	clearHeld := true
	if t.latest != nil && !t.latest.Equal(rel) && !t.latest.Equal(t.rec.Rel) && !(t.latestAt != 0 && t.latestAt < hc.at) {
		// The stream has already described a newer schema than the copy.
		// (A latest equal to the table's old schema is the description
		// from before the change the copy picked up: a schema change no
		// row change has carried yet, resynced by `sidecar resync` or
		// verify. Taking it for newer would resync forever. So is one
		// that came in a transaction the copy's snapshot holds (before
		// hc.at): a description from before quiet schema changes — ADD
		// COLUMN and a row change, then RENAME/retype, then DROP — that
		// differs from both the copy's and the mirror's.)
		nt.rec.State, nt.rec.ResyncFrom = StateResyncNeeded, t.rec.ResyncFrom
		clearHeld = false
		m.log.Warn("copied table changed again meanwhile; it needs another resync", "table", name, "described_at", t.latestAt, "copied_at", hc.at)
	} else if root, err = m.applyHeld(ctx, nt, root, hc.at); err != nil {
		hc.bs.discard()
		var missing *missingRowError
		if !errors.As(err, &missing) {
			return landedTable{}, fmt.Errorf("copy %s: held changes: %w", name, err)
		}
		root = hc.root
		nt.rec.State, nt.rec.ResyncFrom = StateResyncNeeded, hc.at
		m.log.Warn("held change does not apply to the copy; table needs another resync", "table", name, "err", err)
	}
	if err := m.ns.Flush(ctx); err != nil {
		return landedTable{}, fmt.Errorf("copy %s: %w", name, err)
	}
	n, err := m.eng.Count(ctx, root)
	if err != nil {
		return landedTable{}, fmt.Errorf("copy %s: %w", name, err)
	}
	nt.rec.Root, nt.rec.Rows = root, n
	// Versions from this group on hold rows of the copy's schema.
	op.set(relKey(name, end), encodeRel(rel))
	if window != nil {
		op.set(winKey(name, end), window.encode())
	}
	if clearHeld {
		op.delPrefixes = append(op.delPrefixes, heldPrefix(name))
	}
	op.delPrefixes = append(op.delPrefixes, heldCopyKey(name)) // landed (heldcopy.go)
	return landedTable{t: nt, window: window}, nil
}

// noteWaiting logs a copy that waits for the stream.
func (m *Mirror) noteWaiting(hc *heldCopy, reached wal.LSN) {
	m.log.Info("resync copy waits for the stream to reach its snapshot before it lands (reads of the table after its last held version are refused until then)",
		"table", hc.name, "copied_at", hc.at, "taken_up_to", reached, "rows", hc.rows)
}

// noteCommitTime records a taken commit's time: a landing version
// takes the latest. The caller holds mu.
func (m *Mirror) noteCommitTime(t time.Time) {
	if t.After(m.lastTime) {
		m.lastTime = t.UTC()
	}
}

// land is landDue for the stream's calls: a landing that fails without
// failing the mirror (a held change's read, say) leaves its tables
// resync_needed, to be copied again, and the stream goes on. The caller
// holds mu, with no transaction open.
func (m *Mirror) land(ctx context.Context, reached wal.LSN) error {
	if len(m.landing) == 0 {
		return nil
	}
	err := m.landDue(ctx, reached)
	if err != nil && m.err == nil {
		m.log.Error("a resync copy could not land; its tables are copied again", "err", err)
		m.resyncNote.signal()
		return nil
	}
	return err
}

// StreamReached tells the mirror that the stream has delivered every
// commit below lsn and none was open then: an idle stream's position, as
// the server's keepalive reports it once everything received is taken
// (follow calls it where the stream settles an idle slot, wal.Settler).
// Copies taken at or below lsn land now, or, with a transaction open, at
// its end; a copy held later lands at once if its LSN is at or below it.
// On a standby, where no marker can be written, this is what lands a
// resync's copy while no transaction commits. A landing that fails leaves
// its tables resync_needed (land); the error is the mirror's own only.
// A test harness with no server calls it where a stream would have passed
// its copies' LSN.
func (m *Mirror) StreamReached(ctx context.Context, lsn wal.LSN) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	m.reached = max(m.reached, lsn)
	if m.txn != nil {
		// Its Commit lands them (reached is remembered); waiting here
		// would hold the stream's settler behind a long transaction.
		return nil
	}
	return m.land(ctx, lsn)
}
