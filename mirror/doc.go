// Package mirror is the sidecar's single writer: it turns the decoded
// replication stream (wal.Sink) and the initial copy
// (wal.CopySink) into versioned Prolly trees, one per followed
// table, keeps every commit exactly addressable, and reports to the
// stream how far it is durable.
//
// # Versions with bounded write amplification
//
// Every commit is a version, addressed by its commit end LSN. Writing a
// Prolly root per commit would rewrite a leaf-to-root path (~16 KB) per
// single-row transaction, so trees are written per GROUP of commits, and
// each commit in between is a compact log record of its final row states:
//
//	commit  ──▶ log record 's' 'l' endLSN  (+ 'm' 'd' durable LSN, one atomic write)
//	group   ──▶ Mutate each changed tree with the group's sorted edits,
//	            flush nodes, then group record 'c' 'g' endLSN + table records
//	            (one atomic write)
//
// A group is flushed when it holds GroupMaxCommits commits, GroupMaxRows
// changed rows, GroupMaxBytes of edits or is GroupMaxAge old (checked
// after each commit and by a background ticker), at Close, before a table
// is copied, and when a transaction spills. The flush runs in a
// goroutine while apply goes on: the frozen group stays visible to
// lookups (TOAST fill, key-changing updates) between the new pending
// group and the trees until its group record is queued. The version at LSN L of a table is the root
// in the latest group record at or before L plus a replay of the log
// records after that group up to L (Mirror.TreeAt); the replay writes its
// nodes into an in-memory overlay, never into the store.
//
// # Durability (group commit)
//
// Every record reaches Badger through one ordered queue (writer.go).
// Commit queues one operation holding the commit's log record, its held
// changes and the new durable LSN ('m' 'd'), and returns: apply runs at
// CPU speed. A single writer goroutine takes everything queued, writes it
// in queue order in as few Badger transactions as fit (never splitting an
// operation, so a commit's record and its durable LSN are always written
// together), fsyncs (store.DB.Sync), and only then publishes the last
// commit's end LSN through Durable, which the Streamer reports to
// PostgreSQL as flush and apply. While one batch is being synced the next
// accumulates, and the writer lets at least SyncInterval (5 ms) pass
// between fsyncs, so back-to-back commits share them (an fsync writes
// whole pages: syncing each commit of a fast stream multiplies the bytes
// that reach the disk). Group records, table
// records and held-change deletions go through the same queue, so the
// order on disk is the order in which the single apply goroutine made
// them. Readers (TreeAt, Versions) first wait for the commits already
// applied at the LSN they ask for to be written.
//
// # Recovery
//
// Open reads the latest group record and replays every log record after
// it into the in-memory pending group. Replay only rebuilds memory, so it
// is idempotent; the streamer skips commits at or below the durable LSN,
// so nothing is applied twice, and every acknowledged commit has a log
// record, so nothing acknowledged is lost. Badger applies its write-ahead
// log in order, so after a crash the surviving writes are a prefix: a
// group record never survives without the nodes it names (they were
// written before it), and a log record never without the earlier ones.
//
// # Large transactions
//
// A transaction whose pending edits exceed SpillRows or SpillBytes first
// flushes the group (earlier commits), then applies its edits in chunks
// to scratch trees with Mutate; memory stays bounded by one chunk. At
// Commit its scratch roots become the tables' roots in a group record at
// its own end LSN, written in the same Badger transaction as its (header
// only) log record and the durable LSN; on Abort the scratch roots are
// forgotten (their nodes are garbage for GC).
//
// # Schema changes and resync
//
// A Relation message that differs from the stored one (Relation.Equal)
// puts the table in state resync_needed; its later changes are HELD
// ('s' 'h' records, written with their commit) instead of applied. The
// daemon runs replication.Resync for NeedsResync(); TableCopied builds the
// new tree, applies the held changes whose commit LSN is at or above the
// copy's LSN (the copy already contains the older ones), and records the
// table ready in the group record at the head. A table's history before
// the resync keeps its old trees (and the old schema's rows); versions
// between the schema change and the resync show the table as it was
// before the change.
//
// # Retention (retain.go)
//
// Expire(before, keep) drops old versions by deleting records only: the
// horizon moves to the latest group record at or before before, and the
// log and group records below it are deleted, except, for each kept
// version (a tag), its group base and the log records from there to it
// (an island). Expiry is per group because the versions after a group
// replay its log. The retention record ('m' 'h') is written before the
// deletes, and readers filter by it, so an interrupted Expire leaves
// records nobody reads and the next one removes them. A read of a state
// that was expired fails with ErrExpired: an LSN is never answered with
// an older retained version across expired commits.
//
// The nodes only expired versions reached are garbage for
// refs.CollectGarbage, which runs beside the writer: Reading and
// WaitReaders let it wait for reads that resolved a version before it
// was dropped; WatchRoots/RootWatch.Roots give it the trees the mirror
// holds in memory or is about to record (scratch trees of a spilled
// transaction, a group flush or copy in flight, roots recorded during the
// mark). Badger refuses writes while a value-log GC flushes memtables;
// every mirror write retries then (store.RetryBlocked).
//
// # Reads
//
// Head, Versions and VersionAt list commits from the log. TreeAt returns
// a Tree: the table as of the latest commit at or before an LSN, with its
// own engine (the durable store under an in-memory overlay), Get by
// primary key texts, Scan (a prolly cursor over a key range) and Count.
// Reads at successive versions of one group extend the last tree
// materialised for the table instead of replaying from the group's base.
//
// # Known limits
//
//   - REPLICA IDENTITY FULL tables are multisets keyed by the whole
//     row's vrow1 plus an occurrence number (multiset.go; the stream
//     cannot tell a primary key, if there is one): Tree.Get by primary
//     key is refused, and an insert costs a lookup of the row's count.
//   - A schema change is visible to versions only from the resync on:
//     versions between the change and the resync show the old rows under
//     the old Relation.
//   - One group is flushed at a time, in the background: apply pauses
//     only when the next group fills before the previous one is done
//     (and for spills, copies and Close, which flush synchronously).
//
// # On-disk layout
//
// All keys live in the data directory's Badger (store.DB) under the
// prefixes store/doc.go assigns to the mirror. LSNs are 8-byte big-endian;
// integers in values are (u)varints; strings and byte strings are
// uvarint-length-prefixed; a root is the 20-byte node address then the
// 8-byte spec id. Every value starts with a record version byte (1).
//
//	'm' 'i'                      meta: format version, prolly spec id, row hash name,
//	                             row encoding ("vrow1"), PostgreSQL system id,
//	                             timeline, database name
//	'm' 'd'                      end LSN of the last commit logged (durable once synced)
//	'm' 'r'                      resume LSN set before any commit (the copy's consistent point)
//	'm' 'h'                      retention: horizon LSN, then islands (group base LSN, kept
//	                             version LSN) kept below it for tags (absent: nothing expired)
//	'c' 't' name                 table: name, state (2 ready, 3 resync_needed), copied-at LSN,
//	                             resync-from LSN, root and row count as of the latest group,
//	                             Relation (oid, schema, name, identity, columns: name,
//	                             type oid, type name, typmod, key flag)
//	'c' 'g' endLSN               group: per table (sorted by name) name, root, row count:
//	                             every table's tree as of the commit ending at endLSN
//	'c' 'r' name 0x00 fromLSN    Relation of the table's trees in groups from fromLSN on
//	                             (written by each copy, in its group record's write)
//	's' 'l' endLSN               commit log record: commit LSN, commit time (unix ns), xid,
//	                             flags (1 = spilled: the trees are in the group record at the
//	                             same LSN); per table name, rows changed, truncated flag,
//	                             edit count; then per table its edits in key order:
//	                             key, op (0 put + vrow1 value, 1 delete)
//	's' 'n' ordinal              commit index: the commit's end LSN (ordinals count commits
//	                             from 1; written with its log record; HEAD~N is one lookup)
//	's' 'h' name 0x00 commitLSN seq
//	                             held change of a table waiting for resync: kind, old kind,
//	                             new and old tuples (per value: kind, text)
//
// Keys in trees are rowenc.KeyCodec encodings of the replica-identity
// columns (kinds by type OID); values are rowenc vrow1 rows; internal
// entries sum the row hash Options.RowHash (default pghash64) of the
// values, the hash verify computes inside PostgreSQL.
//
// # Invariants
//
//   - Durable() <= the end LSN of the last commit whose log record is
//     synced; it never runs ahead of disk (writer.go).
//   - Versions have strictly increasing end LSNs (checked at Commit).
//   - Table records and the group record they agree with are written in
//     one Badger transaction (checked at Open).
//   - A table is ready only with a root built from a complete copy: the
//     table record is written at TableCopied, after every range closed; a
//     copy interrupted by a crash leaves no record (or the old
//     resync_needed one) and is redone.
//   - An UPDATE whose unchanged (TOAST) columns cannot be filled from the
//     mirror marks the table resync_needed; NULL or a placeholder is
//     never stored for them.
package mirror
