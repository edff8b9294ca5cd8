package wal

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// LSN is a position in PostgreSQL's write-ahead log.
type LSN uint64

// String formats l the way PostgreSQL prints it, e.g. "0/16B3748".
func (l LSN) String() string {
	return fmt.Sprintf("%X/%X", uint32(l>>32), uint32(l))
}

// ParseLSN parses PostgreSQL's "hi/lo" hexadecimal notation.
func ParseLSN(s string) (LSN, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok {
		return 0, fmt.Errorf("parse LSN %q: missing '/'", s)
	}
	h, err := strconv.ParseUint(hi, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("parse LSN %q: %w", s, err)
	}
	l, err := strconv.ParseUint(lo, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("parse LSN %q: %w", s, err)
	}
	return LSN(h<<32 | l), nil
}

// ReplicaIdentity is a table's REPLICA IDENTITY setting (pg_class.relreplident):
// it decides what an UPDATE or DELETE carries about the old row.
type ReplicaIdentity byte

// Replica identities as PostgreSQL spells them.
const (
	IdentityDefault ReplicaIdentity = 'd' // primary key columns
	IdentityNothing ReplicaIdentity = 'n' // nothing: UPDATE and DELETE are refused by the publisher
	IdentityFull    ReplicaIdentity = 'f' // the whole old row
	IdentityIndex   ReplicaIdentity = 'i' // the columns of one unique index
)

// String names the identity as in ALTER TABLE ... REPLICA IDENTITY.
func (r ReplicaIdentity) String() string {
	switch r {
	case IdentityDefault:
		return "DEFAULT"
	case IdentityNothing:
		return "NOTHING"
	case IdentityFull:
		return "FULL"
	case IdentityIndex:
		return "USING INDEX"
	}
	return fmt.Sprintf("identity(%q)", byte(r))
}

// Column describes one published column. Dropped and generated columns are
// never published, so a column's position in [Relation.Columns] is not its
// attnum: match columns by name.
type Column struct {
	Name    string
	TypeOID uint32
	// TypeName is pg_type.typname, schema-qualified unless in pg_catalog;
	// for a domain, the name of its base type (as pgoutput announces it).
	TypeName string
	TypeMod  int32
	// Key is true when the column is part of the replica identity (all
	// columns under REPLICA IDENTITY FULL).
	Key bool
	// Collation is the column's collation as the copy read it from the
	// catalog (catfacts.go); zero for a column of a type without one and
	// in Relations from the stream. Equal ignores it.
	Collation Collation `json:",omitzero"`
}

// Relation is a table as the publisher describes it. The stream sends one
// before the first change of a table in each session and again after any
// catalog change; the copy builds the same description from the catalog.
// Relations handed out are never modified afterwards (a change gets a new
// one) and must not be modified by their receiver.
type Relation struct {
	OID      uint32
	Schema   string
	Name     string
	Identity ReplicaIdentity
	Columns  []Column
	// Facts are the catalog facts the copy read beside the columns
	// (catfacts.go); nil in Relations from the stream. Equal ignores them.
	Facts *Facts `json:",omitempty"`
	// DescribedAt is the commit LSN of the transaction the stream sent
	// this description in (0: not from the stream, or not known); in
	// memory only. A copy whose snapshot is past it holds that
	// transaction, so the description is no newer than the copy's.
	DescribedAt LSN `json:"-"`
}

// QualifiedName is the table's canonical name (TableName.String): the
// mirror's key for the table, quoted only where PostgreSQL needs it.
func (r *Relation) QualifiedName() string {
	return TableName{Schema: r.Schema, Name: r.Name}.String()
}

// Equal reports whether r and o describe the same table with the same
// columns (names, types, typmods, key flags, order) and replica identity.
// The mirror compares a received Relation with its stored one to detect a
// schema change, which needs a resync of that table.
func (r *Relation) Equal(o *Relation) bool {
	if r.OID != o.OID || r.Schema != o.Schema || r.Name != o.Name ||
		r.Identity != o.Identity || len(r.Columns) != len(o.Columns) {
		return false
	}
	for i := range r.Columns {
		a, b := r.Columns[i], o.Columns[i]
		if a.Name != b.Name || a.TypeOID != b.TypeOID || a.TypeMod != b.TypeMod || a.Key != b.Key {
			return false
		}
	}
	return true
}

// KeyColumns returns the indexes in Columns of the replica identity columns.
func (r *Relation) KeyColumns() []int {
	var ks []int
	for i, c := range r.Columns {
		if c.Key {
			ks = append(ks, i)
		}
	}
	return ks
}

// ValueKind says what a Value holds.
type ValueKind uint8

// Value kinds.
const (
	// Null is SQL NULL (distinct from the empty string, which is Text with no bytes).
	Null ValueKind = iota
	// Text holds the bytes of the type's text output function.
	Text
	// Unchanged marks an out-of-line (TOASTed) value the UPDATE did not
	// change: PostgreSQL does not send it, the mirror must keep its current
	// value. In an old-key tuple it marks a column that is not part of the
	// key. Never store it as NULL.
	Unchanged
)

// Value is one column value.
type Value struct {
	Kind  ValueKind
	Bytes []byte // set only for Text
}

// String renders v for messages and tests: NULL, <unchanged>, or the text.
func (v Value) String() string {
	switch v.Kind {
	case Null:
		return "NULL"
	case Unchanged:
		return "<unchanged>"
	}
	return string(v.Bytes)
}

// ChangeKind is the kind of row change.
type ChangeKind uint8

// Change kinds.
const (
	Insert ChangeKind = iota + 1
	Update
	Delete
	Truncate
	// Message is a transactional logical decoding message
	// (pg_logical_emit_message(true, prefix, content)).
	Message
)

func (k ChangeKind) String() string {
	switch k {
	case Insert:
		return "insert"
	case Update:
		return "update"
	case Delete:
		return "delete"
	case Truncate:
		return "truncate"
	case Message:
		return "message"
	}
	return fmt.Sprintf("change(%d)", uint8(k))
}

// OldKind says what an UPDATE or DELETE carries about the old row.
type OldKind uint8

// Old-row kinds.
const (
	// NoOld: an UPDATE that did not change the replica identity columns
	// (under DEFAULT or USING INDEX) carries only the new row.
	NoOld OldKind = iota
	// OldKey: only the identity columns are meaningful; the others are
	// Unchanged (not NULL). Sent when the key changed, and by every DELETE
	// under DEFAULT or USING INDEX.
	OldKey
	// OldRow: the whole old row (REPLICA IDENTITY FULL), TOAST detoasted.
	OldRow
)

// Change is one decoded row change (or truncate, or message) of a
// transaction. The sink may keep it and everything it points to: nothing is
// reused after the call returns.
type Change struct {
	Kind ChangeKind
	// Relation is the table of an Insert, Update or Delete, as described by
	// the most recent Relation call for its OID.
	Relation *Relation
	// New is the new row (Insert, Update), one value per Relation column.
	// An Update's New may hold Unchanged values: take them from Old when
	// OldKind is OldRow, otherwise from the mirror's current row.
	New []Value
	// Old is the old key or old row of an Update or Delete, see OldKind.
	// A primary-key-changing Update has OldKey: delete Old's key, then
	// insert New.
	Old     []Value
	OldKind OldKind

	// Truncated lists the relations of a Truncate (several with CASCADE).
	Truncated       []*Relation
	Cascade         bool
	RestartIdentity bool

	// Prefix and Content carry a Message.
	Prefix  string
	Content []byte
}

// TxnInfo describes a committed transaction. At Begin of a transaction
// that was not streamed, EndLSN is not known yet and is zero; at Commit
// every field is set.
type TxnInfo struct {
	Xid uint32
	// CommitLSN is the start of the commit record. The server decides
	// which transactions a snapshot at LSN S contains by CommitLSN < S.
	CommitLSN LSN
	// EndLSN is the end of the commit record: the position to store as
	// the resume point and to acknowledge.
	EndLSN     LSN
	CommitTime time.Time
	// Streamed is true when the transaction arrived in streamed chunks
	// (spooled, then replayed at its commit).
	Streamed bool
}

// Sink receives the decoded stream. The mirror implements it. Calls come
// from one goroutine, in commit order:
//
//	Relation* (Begin (Relation | Change)* (Commit | Abort))*
//
// Relation can also arrive outside a transaction (before the Begin it
// precedes, or from a transaction skipped because it is already durable):
// it describes the table for every following change of that OID.
//
// Begin is sent with a transaction's first change. A transaction with
// nothing to deliver (all its changes dropped by [CopiedAt], or a streamed
// transaction that touched only unpublished tables) is not sent at all.
//
// A transaction is delivered as it is decoded, never held in memory, so a
// 5M-row transaction streams through. If the connection breaks inside a
// transaction, Abort is called: discard what was received since Begin; the
// transaction will be sent again after reconnecting.
//
// An error returned by Begin, Relation, Change, Commit or Abort stops the
// stream: replication.Streamer.Run returns it wrapped.
type Sink interface {
	Begin(ctx context.Context, txn TxnInfo) error
	Relation(ctx context.Context, rel *Relation) error
	Change(ctx context.Context, c *Change) error
	Commit(ctx context.Context, txn TxnInfo) error
	Abort(ctx context.Context, txn TxnInfo) error
	// Durable returns the highest commit end LSN whose effects are durably
	// stored (at start: the stored resume LSN, e.g. the copy's consistent
	// point). It is called from another goroutine than the other methods
	// and must be safe for that (an atomic). Replication starts there,
	// flush and apply report it, and a transaction ending at or below it is
	// skipped.
	Durable() LSN
}
