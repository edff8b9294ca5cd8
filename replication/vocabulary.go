package replication

import "github.com/sidecar-dev/sidecar/wal"

// The vocabulary of the stream lives in package wal, a leaf that imports no
// PostgreSQL client. These aliases keep code written against the old names
// compiling; new code names package wal.

// Deprecated: alias kept for code written before the move; use wal.LSN.
type LSN = wal.LSN

// Deprecated: alias kept for code written before the move; use wal.ParseLSN.
func ParseLSN(s string) (wal.LSN, error) { return wal.ParseLSN(s) }

// Deprecated: alias kept for code written before the move; use wal.ReplicaIdentity.
type ReplicaIdentity = wal.ReplicaIdentity

// Deprecated: aliases kept for code written before the move; use wal's constants.
const (
	IdentityDefault = wal.IdentityDefault
	IdentityNothing = wal.IdentityNothing
	IdentityFull    = wal.IdentityFull
	IdentityIndex   = wal.IdentityIndex
)

// Deprecated: alias kept for code written before the move; use wal.Column.
type Column = wal.Column

// Deprecated: alias kept for code written before the move; use wal.Relation.
type Relation = wal.Relation

// Deprecated: alias kept for code written before the move; use wal.TableName.
type TableName = wal.TableName

// Deprecated: alias kept for code written before the move; use wal.ParseTableName.
func ParseTableName(s string) (wal.TableName, error) { return wal.ParseTableName(s) }

// Deprecated: alias kept for code written before the move; use wal.QuoteIdent.
func QuoteIdent(s string) string { return wal.QuoteIdent(s) }

// Deprecated: alias kept for code written before the move; use wal.ValueKind.
type ValueKind = wal.ValueKind

// Deprecated: aliases kept for code written before the move; use wal's constants.
const (
	Null      = wal.Null
	Text      = wal.Text
	Unchanged = wal.Unchanged
)

// Deprecated: alias kept for code written before the move; use wal.Value.
type Value = wal.Value

// Deprecated: alias kept for code written before the move; use wal.ChangeKind.
type ChangeKind = wal.ChangeKind

// Deprecated: aliases kept for code written before the move; use wal's constants.
const (
	Insert   = wal.Insert
	Update   = wal.Update
	Delete   = wal.Delete
	Truncate = wal.Truncate
	Message  = wal.Message
)

// Deprecated: alias kept for code written before the move; use wal.OldKind.
type OldKind = wal.OldKind

// Deprecated: aliases kept for code written before the move; use wal's constants.
const (
	NoOld  = wal.NoOld
	OldKey = wal.OldKey
	OldRow = wal.OldRow
)

// Deprecated: alias kept for code written before the move; use wal.Change.
type Change = wal.Change

// Deprecated: alias kept for code written before the move; use wal.TxnInfo.
type TxnInfo = wal.TxnInfo

// Deprecated: alias kept for code written before the move; use wal.Sink.
type Sink = wal.Sink

// Deprecated: alias kept for code written before the move; use wal.Settler.
type Settler = wal.Settler

// Deprecated: alias kept for code written before the move; use wal.CopySink.
type CopySink = wal.CopySink

// Deprecated: alias kept for code written before the move; use wal.RowWriter.
type RowWriter = wal.RowWriter

// Deprecated: alias kept for code written before the move; use wal.BlockRange.
type BlockRange = wal.BlockRange

// Deprecated: alias kept for code written before the move; use wal.CopiedAt.
type CopiedAt = wal.CopiedAt

// Deprecated: alias kept for code written before the move; use wal.NewCopiedAt.
func NewCopiedAt() *wal.CopiedAt { return wal.NewCopiedAt() }

// Deprecated: alias kept for code written before the move; use wal.SystemIdentity.
type SystemIdentity = wal.SystemIdentity

// Deprecated: alias kept for code written before the move; use wal.ErrSystemChanged.
var ErrSystemChanged = wal.ErrSystemChanged
