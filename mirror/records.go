package mirror

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/internal/corrupt"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// Keys. Every key starts with a prefix byte the store package assigns to
// the mirror (store/doc.go), then a sub-kind byte. LSNs are 8-byte
// big-endian so that Badger's byte order is LSN order.
var (
	keyMeta    = []byte{store.PrefixMeta, 'i'} // identity: format, spec, row hash, system
	keyDurable = []byte{store.PrefixMeta, 'd'} // end LSN of the last commit written
	keyResume  = []byte{store.PrefixMeta, 'r'} // resume LSN set before any commit (copy's consistent point)
)

const (
	subTable = 't' // 'c' 't' name → tableRecord
	subGroup = 'g' // 'c' 'g' endLSN → groupRecord
	subLog   = 'l' // 's' 'l' endLSN → commit log record
	subHeld  = 'h' // 's' 'h' name 0x00 commitLSN seq → heldChange
	subRel   = 'r' // 'c' 'r' name 0x00 fromLSN → Relation the table's trees use from that group on
	subWin   = 'w' // 'c' 'w' name 0x00 landingLSN → resyncWindow (landing.go)
)

func tableKey(name string) []byte {
	return append([]byte{store.PrefixCatalog, subTable}, name...)
}

func tablePrefix() []byte { return []byte{store.PrefixCatalog, subTable} }

func relPrefix(table string) []byte {
	k := append([]byte{store.PrefixCatalog, subRel}, table...)
	return append(k, 0)
}

func relKey(table string, from wal.LSN) []byte {
	return binary.BigEndian.AppendUint64(relPrefix(table), uint64(from))
}

func encodeRel(rel *wal.Relation) []byte {
	e := enc{}
	e.byte(recVersion)
	encodeRelation(&e, rel)
	return e.b
}

func decodeRel(b []byte) (*wal.Relation, error) {
	d := dec{b: b}
	if v := d.byte(); v != recVersion && d.err == nil {
		return nil, fmt.Errorf("decode relation: %w: record version %d", errCorrupt, v)
	}
	rel := decodeRelation(&d)
	return rel, d.done("relation")
}

func groupKey(end wal.LSN) []byte {
	return binary.BigEndian.AppendUint64([]byte{store.PrefixCatalog, subGroup}, uint64(end))
}

func groupPrefix() []byte { return []byte{store.PrefixCatalog, subGroup} }

func logKey(end wal.LSN) []byte {
	return binary.BigEndian.AppendUint64([]byte{store.PrefixSpool, subLog}, uint64(end))
}

func logPrefix() []byte { return []byte{store.PrefixSpool, subLog} }

func heldPrefix(table string) []byte {
	k := append([]byte{store.PrefixSpool, subHeld}, table...)
	return append(k, 0)
}

func heldTxnPrefix(table string, commit wal.LSN) []byte {
	return binary.BigEndian.AppendUint64(heldPrefix(table), uint64(commit))
}

func heldKey(table string, commit wal.LSN, seq uint32) []byte {
	return binary.BigEndian.AppendUint32(heldTxnPrefix(table, commit), seq)
}

// lsnOfKey returns the LSN suffix of a group or log key.
func lsnOfKey(k []byte) (wal.LSN, error) {
	if len(k) != 10 {
		return 0, fmt.Errorf("key %x: want 10 bytes", k)
	}
	return wal.LSN(binary.BigEndian.Uint64(k[2:])), nil
}

// errCorrupt is wrapped by every decoding error of a record read back.
var errCorrupt = corrupt.New("corrupt mirror record")

// enc appends the primitive fields of records.
type enc struct{ b []byte }

func (e *enc) byte(v byte)      { e.b = append(e.b, v) }
func (e *enc) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) bytes(v []byte)   { e.uvarint(uint64(len(v))); e.b = append(e.b, v...) }
func (e *enc) str(v string)     { e.uvarint(uint64(len(v))); e.b = append(e.b, v...) }
func (e *enc) root(r prolly.Root) {
	e.b = append(e.b, r.Hash[:]...)
	e.b = append(e.b, r.Spec[:]...)
}

// dec reads what enc wrote; the first error sticks and later reads return
// zero values.
type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: truncated or invalid %s", errCorrupt, what)
	}
}

func (d *dec) byte() byte {
	if d.err != nil || len(d.b) < 1 {
		d.fail("byte")
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *dec) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("uvarint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a length that must not exceed the bytes left (every counted
// item takes at least one byte), so corrupt input cannot ask for huge
// allocations.
func (d *dec) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("count")
		return 0
	}
	return int(n)
}

// bytes returns a sub-slice of the input (not copied).
func (d *dec) bytes() []byte {
	n := d.count()
	if d.err != nil {
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *dec) str() string { return string(d.bytes()) }

func (d *dec) root() prolly.Root {
	var r prolly.Root
	if d.err != nil || len(d.b) < addr.Size+len(r.Spec) {
		d.fail("root")
		return r
	}
	copy(r.Hash[:], d.b)
	copy(r.Spec[:], d.b[addr.Size:])
	d.b = d.b[addr.Size+len(r.Spec):]
	return r
}

func (d *dec) done(what string) error {
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d trailing bytes", errCorrupt, len(d.b))
	}
	if d.err != nil {
		return fmt.Errorf("decode %s: %w", what, d.err)
	}
	return nil
}

// metaRecord is the identity of a data directory: what its bytes mean.
type metaRecord struct {
	Format  uint64        // FormatVersion of the mirror's records
	Spec    prolly.SpecID // every tree's spec
	RowHash string        // rowhash.ID name summed into the trees
	RowEnc  string        // rowenc.Version of the stored values
	System  wal.SystemIdentity
}

const recVersion = 1

func (r *metaRecord) encode() []byte {
	e := enc{}
	e.byte(recVersion)
	e.uvarint(r.Format)
	e.b = append(e.b, r.Spec[:]...)
	e.str(r.RowHash)
	e.str(r.RowEnc)
	e.str(r.System.SystemID)
	e.varint(int64(r.System.Timeline))
	e.str(r.System.DBName)
	return e.b
}

func decodeMeta(b []byte) (metaRecord, error) {
	d := dec{b: b}
	var r metaRecord
	if v := d.byte(); v != recVersion && d.err == nil {
		return r, fmt.Errorf("decode meta: %w: record version %d", errCorrupt, v)
	}
	r.Format = d.uvarint()
	if len(d.b) < len(r.Spec) {
		d.fail("spec id")
	} else {
		copy(r.Spec[:], d.b)
		d.b = d.b[len(r.Spec):]
	}
	r.RowHash = d.str()
	r.RowEnc = d.str()
	r.System.SystemID = d.str()
	r.System.Timeline = int32(d.varint())
	r.System.DBName = d.str()
	return r, d.done("meta")
}

// TableState is where a table is in its life cycle.
type TableState uint8

// Table states.
const (
	// StateCopying: the initial copy or a resync is running (never stored:
	// a table whose copy did not finish has no record, or keeps its
	// resync_needed record).
	StateCopying TableState = iota + 1
	// StateReady: copied at CopiedAt and following the stream.
	StateReady
	// StateResyncNeeded: its schema changed (or its stored rows cannot be
	// trusted); its changes are held, not applied, until a resync.
	StateResyncNeeded
)

// String names the state as status output and logs print it.
func (s TableState) String() string {
	switch s {
	case StateCopying:
		return "copying"
	case StateReady:
		return "ready"
	case StateResyncNeeded:
		return "resync_needed"
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}

// tableRecord is the stored state of one followed table.
type tableRecord struct {
	Name     string
	State    TableState
	CopiedAt wal.LSN
	// ResyncFrom is the commit LSN from which the table's changes are held
	// (state resync_needed).
	ResyncFrom wal.LSN
	Root       prolly.Root // as of the last group record
	Rows       uint64
	Rel        *wal.Relation // as copied (or last streamed while ready)
}

func (r *tableRecord) encode() []byte {
	e := enc{}
	e.byte(recVersion)
	e.str(r.Name)
	e.byte(byte(r.State))
	e.uvarint(uint64(r.CopiedAt))
	e.uvarint(uint64(r.ResyncFrom))
	e.root(r.Root)
	e.uvarint(r.Rows)
	encodeRelation(&e, r.Rel)
	return e.b
}

func decodeTable(b []byte) (*tableRecord, error) {
	d := dec{b: b}
	if v := d.byte(); v != recVersion && d.err == nil {
		return nil, fmt.Errorf("decode table: %w: record version %d", errCorrupt, v)
	}
	r := &tableRecord{}
	r.Name = d.str()
	r.State = TableState(d.byte())
	r.CopiedAt = wal.LSN(d.uvarint())
	r.ResyncFrom = wal.LSN(d.uvarint())
	r.Root = d.root()
	r.Rows = d.uvarint()
	r.Rel = decodeRelation(&d)
	if err := d.done("table"); err != nil {
		return nil, err
	}
	if r.State != StateReady && r.State != StateResyncNeeded {
		return nil, fmt.Errorf("decode table %s: %w: state %d", r.Name, errCorrupt, r.State)
	}
	return r, nil
}

func encodeRelation(e *enc, rel *wal.Relation) {
	e.uvarint(uint64(rel.OID))
	e.str(rel.Schema)
	e.str(rel.Name)
	e.byte(byte(rel.Identity))
	e.uvarint(uint64(len(rel.Columns)))
	for _, c := range rel.Columns {
		e.str(c.Name)
		e.uvarint(uint64(c.TypeOID))
		e.str(c.TypeName)
		e.varint(int64(c.TypeMod))
		if c.Key {
			e.byte(1)
		} else {
			e.byte(0)
		}
	}
	encodeFacts(e, rel)
}

func decodeRelation(d *dec) *wal.Relation {
	rel := &wal.Relation{}
	rel.OID = uint32(d.uvarint())
	rel.Schema = d.str()
	rel.Name = d.str()
	rel.Identity = wal.ReplicaIdentity(d.byte())
	n := d.count()
	for i := 0; i < n && d.err == nil; i++ {
		var c wal.Column
		c.Name = d.str()
		c.TypeOID = uint32(d.uvarint())
		c.TypeName = d.str()
		c.TypeMod = int32(d.varint())
		c.Key = d.byte() == 1
		rel.Columns = append(rel.Columns, c)
	}
	decodeFacts(d, rel)
	return rel
}

// groupRecord names every table's root as of a group's last commit.
type groupRecord struct {
	End   wal.LSN
	Roots map[string]groupRoot
}

type groupRoot struct {
	Root prolly.Root
	Rows uint64
}

func (g *groupRecord) encode(names []string) []byte {
	e := enc{}
	e.byte(recVersion)
	e.uvarint(uint64(len(names)))
	for _, n := range names {
		r := g.Roots[n]
		e.str(n)
		e.root(r.Root)
		e.uvarint(r.Rows)
	}
	return e.b
}

func decodeGroup(end wal.LSN, b []byte) (*groupRecord, error) {
	d := dec{b: b}
	if v := d.byte(); v != recVersion && d.err == nil {
		return nil, fmt.Errorf("decode group %s: %w: record version %d", end, errCorrupt, v)
	}
	g := &groupRecord{End: end, Roots: map[string]groupRoot{}}
	n := d.count()
	for i := 0; i < n && d.err == nil; i++ {
		name := d.str()
		r := d.root()
		g.Roots[name] = groupRoot{Root: r, Rows: d.uvarint()}
	}
	if err := d.done(fmt.Sprintf("group %s", end)); err != nil {
		return nil, err
	}
	return g, nil
}

// Version is one committed transaction: every commit is a version.
type Version struct {
	// EndLSN is the end of the commit record: the version's address.
	EndLSN wal.LSN
	// CommitLSN is the start of the commit record.
	CommitLSN  wal.LSN
	CommitTime time.Time
	Xid        uint32
	// Tables lists the followed tables the transaction changed.
	Tables []TableChange
	// Spilled is true for a transaction too large for the change log: its
	// trees were built at its commit and stored as a group of its own.
	Spilled bool
	// Held lists the tables the transaction changed while they waited
	// for a resync (state resync_needed): their changes were held, and
	// reach the tree with the resync's copy, so these tables have no
	// per-commit history at this version (issue 16.3). Never in Tables.
	Held []string
	// Resynced lists the tables whose resync copy landed at this version
	// (landing.go): their trees were replaced by the copy (with the
	// changes held since its snapshot applied). A version that only
	// lands copies is no commit: CommitLSN is EndLSN, Xid 0, its time the
	// last commit's taken before it.
	Resynced []string
}

// TableChange is what one commit did to one table.
type TableChange struct {
	Table string
	// Rows counts the row changes applied (inserts, updates, deletes).
	Rows int64
	// Truncated is true when the transaction truncated the table (before
	// its later changes in the same transaction).
	Truncated bool
}

const logFlagSpilled = 1

// Flags of a table entry of a log record.
const (
	logTableTruncated = 1
	logTableHeld      = 2 // Version.Held: no rows, no edits
	logTableResynced  = 4 // Version.Resynced: no rows, no edits
)

// logEdit is one entry of a commit's change log: the row's final state
// after the transaction.
type logEdit struct {
	key []byte
	val []byte // nil with del
	del bool
}

// logTable is a commit's changes to one table, keys ascending.
type logTable struct {
	change TableChange
	edits  []logEdit
}

// encodeLog encodes a commit's log record: a header that Versions reads
// alone, then the edits.
func encodeLog(v *Version, tables []logTable) []byte {
	e := enc{}
	e.byte(recVersion)
	e.uvarint(uint64(v.CommitLSN))
	e.varint(v.CommitTime.UnixNano())
	e.uvarint(uint64(v.Xid))
	if v.Spilled {
		e.byte(logFlagSpilled)
	} else {
		e.byte(0)
	}
	e.uvarint(uint64(len(tables) + len(v.Held) + len(v.Resynced)))
	for _, t := range tables {
		e.str(t.change.Table)
		e.uvarint(uint64(t.change.Rows))
		if t.change.Truncated {
			e.byte(logTableTruncated)
		} else {
			e.byte(0)
		}
		e.uvarint(uint64(len(t.edits)))
	}
	for _, name := range v.Held { // entries without rows or edits
		e.str(name)
		e.uvarint(0)
		e.byte(logTableHeld)
		e.uvarint(0)
	}
	for _, name := range v.Resynced {
		e.str(name)
		e.uvarint(0)
		e.byte(logTableResynced)
		e.uvarint(0)
	}
	for _, t := range tables {
		for _, ed := range t.edits {
			e.bytes(ed.key)
			if ed.del {
				e.byte(1)
			} else {
				e.byte(0)
				e.bytes(ed.val)
			}
		}
	}
	return e.b
}

// decodeLog decodes a log record; with edits false it stops after the
// header (the edits slices stay nil). Keys and values alias b.
func decodeLog(end wal.LSN, b []byte, edits bool) (*Version, []logTable, error) {
	d := dec{b: b}
	if v := d.byte(); v != recVersion && d.err == nil {
		return nil, nil, fmt.Errorf("decode log record %s: %w: record version %d", end, errCorrupt, v)
	}
	v := &Version{EndLSN: end}
	v.CommitLSN = wal.LSN(d.uvarint())
	v.CommitTime = time.Unix(0, d.varint()).UTC()
	v.Xid = uint32(d.uvarint())
	v.Spilled = d.byte()&logFlagSpilled != 0
	n := d.count()
	tables := make([]logTable, 0, n)
	counts := make([]int, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		var t logTable
		t.change.Table = d.str()
		t.change.Rows = int64(d.uvarint())
		flags := d.byte()
		t.change.Truncated = flags&logTableTruncated != 0
		if flags&logTableHeld != 0 {
			if d.count() != 0 && d.err == nil {
				return nil, nil, fmt.Errorf("decode log record %s: %w: held table %q with edits", end, errCorrupt, t.change.Table)
			}
			v.Held = append(v.Held, t.change.Table)
			continue
		}
		if flags&logTableResynced != 0 {
			if d.count() != 0 && d.err == nil {
				return nil, nil, fmt.Errorf("decode log record %s: %w: resynced table %q with edits", end, errCorrupt, t.change.Table)
			}
			v.Resynced = append(v.Resynced, t.change.Table)
			continue
		}
		counts = append(counts, d.count())
		tables = append(tables, t)
		v.Tables = append(v.Tables, t.change)
	}
	if d.err != nil {
		return nil, nil, fmt.Errorf("decode log record %s: %w", end, d.err)
	}
	if !edits {
		return v, nil, nil
	}
	for i := range tables {
		tables[i].edits = make([]logEdit, 0, counts[i])
		for j := 0; j < counts[i] && d.err == nil; j++ {
			var ed logEdit
			ed.key = d.bytes()
			ed.del = d.byte() == 1
			if !ed.del {
				ed.val = d.bytes()
			}
			tables[i].edits = append(tables[i].edits, ed)
		}
	}
	if err := d.done(fmt.Sprintf("log record %s", end)); err != nil {
		return nil, nil, err
	}
	return v, tables, nil
}

// heldChange is a change to a table in state resync_needed, kept until
// the table's resync decides whether it is already in the copy.
type heldChange struct {
	kind    wal.ChangeKind
	oldKind wal.OldKind
	newVals []wal.Value
	oldVals []wal.Value
}

func encodeValues(e *enc, vals []wal.Value) {
	e.uvarint(uint64(len(vals)))
	for _, v := range vals {
		e.byte(byte(v.Kind))
		if v.Kind == wal.Text {
			e.bytes(v.Bytes)
		}
	}
}

func decodeValues(d *dec) []wal.Value {
	n := d.count()
	if n == 0 {
		return nil
	}
	vals := make([]wal.Value, n)
	for i := 0; i < n && d.err == nil; i++ {
		vals[i].Kind = wal.ValueKind(d.byte())
		if vals[i].Kind == wal.Text {
			vals[i].Bytes = d.bytes()
		}
	}
	return vals
}

func (h *heldChange) encode() []byte {
	e := enc{}
	e.byte(recVersion)
	e.byte(byte(h.kind))
	e.byte(byte(h.oldKind))
	encodeValues(&e, h.newVals)
	encodeValues(&e, h.oldVals)
	return e.b
}

func decodeHeld(b []byte) (*heldChange, error) {
	d := dec{b: b}
	if v := d.byte(); v != recVersion && d.err == nil {
		return nil, fmt.Errorf("decode held change: %w: record version %d", errCorrupt, v)
	}
	h := &heldChange{}
	h.kind = wal.ChangeKind(d.byte())
	h.oldKind = wal.OldKind(d.byte())
	h.newVals = decodeValues(&d)
	h.oldVals = decodeValues(&d)
	return h, d.done("held change")
}
