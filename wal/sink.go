package wal

import "context"

// BlockRange is one slice of a table read by one COPY: the heap blocks
// [Start, End) of Source. End == 0 means "to the end of the table": the
// last range of every table is open-ended, so blocks added since the block
// count was taken are still read (their rows are invisible to the
// snapshot anyway, but nothing may be missed).
type BlockRange struct {
	Source TableName // the table read: the relation itself, or one of its partitions
	Start  uint32
	End    uint32
	Index  int // position among the relation's ranges, 0-based
	Of     int // number of ranges of the relation
}

// CopySink receives the initial copy. The mirror implements it.
//
// CopyRange is called concurrently from several workers, for ranges of
// the same or different tables; each RowWriter is used by one goroutine.
// TableCopied is called once per table after every one of its ranges was
// closed successfully, possibly concurrently for different tables.
type CopySink interface {
	// CopyRange opens the receiver of one block range of rel. Rows arrive
	// in ctid order within the range; ranges arrive in any order, so the
	// mirror sorts (or bulk-builds from sorted runs).
	CopyRange(ctx context.Context, rel *Relation, r BlockRange) (RowWriter, error)
	// TableCopied says that rel is completely copied as of at: the stream
	// must drop rel's changes from transactions with CommitLSN < at.
	// Record it durably with the rows: a table is either copied at a
	// known LSN or not copied at all.
	TableCopied(ctx context.Context, rel *Relation, at LSN) error
}

// RowWriter receives the rows of one block range.
type RowWriter interface {
	// WriteRow receives one row, one value per Relation column, never
	// Unchanged. values and their bytes are valid only during the call.
	WriteRow(values []Value) error
	// Close is called after the last row of a range that was read
	// completely.
	Close() error
	// Abort is called instead of Close when the range failed; its rows
	// must be forgotten.
	Abort()
}

// Settler is an optional extension of a Sink: before the stream
// acknowledges an idle slot past the sink's durable LSN (nothing received
// is unapplied), Settle records lsn durably; on an error the
// acknowledgement stays at the durable LSN. A sink that keeps it can tell
// on its next start a slot it moved on itself from one another consumer
// moved (the daemon refuses the latter: the changes between are lost).
type Settler interface {
	Settle(lsn LSN) error
}
