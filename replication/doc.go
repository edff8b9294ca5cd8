// Package replication follows a PostgreSQL database through logical
// replication (pgoutput, protocol version 2) and hands what it decodes to a
// consumer. It knows nothing about storage: the consumer (the mirror) owns
// durability and tells this package how far it got.
//
// # Lifecycle
//
// A consumer drives four steps, each a function or type of this package:
//
//  1. [IdentifySystem] on a replication connection ([ConnectReplication]):
//     persist the system id and timeline with the mirror and compare them on
//     every later start ([wal.SystemIdentity.Check]); another cluster or a new
//     timeline means the slot and every stored LSN are meaningless.
//  2. [EnsurePublication], then [CreateSlot]: the publication is created
//     before the slot (decoding WAL older than the publication fails forever),
//     and the slot exports a snapshot at its consistent point.
//  3. [Copy] under that snapshot: parallel workers, ctid block ranges, COPY
//     text. Every table is reported copied at the slot's consistent point. A
//     copy interrupted by a crash cannot be continued under the lost snapshot:
//     the tables not yet complete are copied again by [Resync], under a fresh
//     snapshot from a temporary slot, and the main stream drops their
//     changes from transactions that snapshot already shows (CommitLSN
//     below its LSN) through [wal.CopiedAt].
//  4. [Streamer.Run]: START_REPLICATION from the consumer's durable LSN,
//     decoding into [wal.Sink] calls, acknowledging only what the sink reports
//     durable, reconnecting with capped backoff until the context ends or a
//     fatal error ([ErrSlotLost], [wal.ErrSystemChanged], a sink error).
//
// # What the mirror must do
//
//   - Store each transaction's [wal.TxnInfo.EndLSN] in the same durable commit
//     as its rows, and report the highest one through [wal.Sink.Durable]; start
//     with the slot's consistent point, never 0/0 (Run refuses it).
//   - Apply [wal.Change] values as described there: an Update or Delete with
//     OldKey deletes the old key (a PK-changing UPDATE), Unchanged values
//     are taken from OldRow or from the mirror's current row (never stored
//     as NULL; a missing current row is corruption: resync the table).
//   - Key rows by [wal.Relation.KeyColumns] (Relation key flags mark every column under
//     REPLICA IDENTITY FULL).
//   - Compare every [wal.Relation] with the stored schema ([wal.Relation.Equal]);
//     on a difference, stop Run, call [Resync] for that table, install
//     the copy durably with its LSN S, [wal.CopiedAt.Set] it, and Run again
//     from the durable LSN: the table's changes before S are dropped, the
//     other tables replay normally. DDL itself is not replicated.
//   - Discard a transaction on [wal.Sink.Abort] (the connection broke; it comes
//     again).
//
// # Positions
//
// Two positions are kept apart: what was received (reported to PostgreSQL
// as write) and what the sink made durable ([wal.Sink.Durable], reported as
// flush and apply). All three are always set explicitly. Only when nothing
// received is still unapplied does the keepalive's WAL end get acknowledged,
// so an idle slot does not pin WAL. A transaction whose commit end LSN is at
// or below the durable LSN is skipped: the slot may send it again.
//
// Three goroutines per connection: the reader (receives and decodes, never
// writes), the apply loop (the sink), and the status sender, the only
// writer while streaming: a status update at least every quarter of
// wal_sender_timeout (10 s at most), within ~50 ms of the durable LSN
// moving, and at once for a keepalive that asks for a reply. Neither a
// stalled sink nor a stalled reader can hold a status back, so the
// walsender does not time the connection out.
//
// # Values
//
// Column values are the exact bytes of PostgreSQL's text output functions,
// with the session settings pinned ([rowenc.PinSession], the canonical settings of [rowenc.SessionParams]) on every connection
// this package opens, so a value read by the copy and the same value
// received from the stream are byte-identical.
package replication
