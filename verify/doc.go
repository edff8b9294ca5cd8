// Package verify proves that the mirror of a table equals PostgreSQL's
// table at one exact LSN, and names the differing rows when it does not
// (DESIGN.md, `sidecar verify`; research in notes/verify.md).
//
// The pieces, in protocol order:
//
//   - Pin (pin.go): a REPEATABLE READ transaction on a replication
//     connection that creates a temporary logical slot with SNAPSHOT 'use';
//     its snapshot sees exactly the commits that end at or before the slot's
//     consistent point C. The mirror side is the version of the last commit
//     with end LSN ≤ C. PinGroup shares such a snapshot ('export') among
//     parallel worker connections.
//   - CheckSession and ChooseHash (conn.go): the session prints values
//     exactly as the mirror stores them (rowenc.SessionParams, UTF8), and a
//     known-answer self-test picks the row hash (package rowhash): pghash64
//     when the server agrees with the Go port, else md5-64, else sha256-64.
//   - The SQL (sql.go, buckets.go): per column, an expression yielding the
//     output-function text pgoutput sends (col::text only for types whose
//     cast is an I/O conversion; format('%s', col) otherwise); per row, the
//     vrow1 encoding (package rowenc) and its hash; per bucket,
//     (count, Σ H mod 2^64) for fixed-width integer keys, boundary keys or
//     hash buckets; per key range, (key texts, H). Identifiers are quoted
//     with pgx.Identifier, literals with QuoteLiteral (the replication
//     connection speaks only the simple protocol), and functions are
//     schema-qualified.
//   - The comparison (compare.go): FetchDigests and DirtyBuckets at level
//     0, FetchKeyHashes and DiffKeyHashes for the dirty buckets, giving
//     missing, extra and changed keys.
//   - VerifyTable (table.go) runs the whole protocol for one table against
//     a MirrorTable, the interface the mirror implements (digests of key
//     ranges in O(height) from the Prolly tree, quantile keys, key hashes).
//   - TreeTable (tree.go) is that interface over one version of a mirror
//     table (MirrorAt(mirror.Tree)). Its Buckets cuts level 0 between
//     leaves and sums the (count, Σ H) of internal entries in one walk:
//     O(buckets · height) node reads and no row hashed; only the dirty
//     buckets' rows (and, for composite keys, the hash-bucket scan) are.
//   - Runner (run.go) is `sidecar verify` and POST /api/verify: Pin, wait
//     until the mirror has applied every commit up to the pinned LSN C
//     (the stream's progress; with no stream, a peek at the mirror's slot
//     proving that no published transaction committed after the mirror's
//     last commit, else ErrMirrorBehind), then VerifyTable per table at the
//     mirror's version "last commit ending ≤ C", each in a savepoint, and a
//     Report with both sides' rows for the differing keys.
//   - Periodic (periodic.go) is verify.interval in the daemon: a Runner
//     every interval, the sidecar_verify_result gauge, and Last for status.
//
// Because the mirror stores the vrow1 bytes as received, the row hash is
// computed on both sides over identical bytes, with no decoding or
// re-encoding on the mirror side.
//
// # Catching up to the pinned LSN
//
// A commit ending at or before C may still be on its way to the mirror
// when PostgreSQL is pinned. With a stream running, Runner commits a
// transaction holding only a logical decoding message (MarkerPrefix)
// right after pinning; its commit ends after C, so once the stream has
// applied it (Progress, from the streamer's statistics) every commit
// ending at or before C is in the mirror. Without the marker the stream
// passes C only at the server's next keepalive, which on an idle stream
// took seconds. The marker writes WAL only, and the mirror keeps it as a
// version that changed no rows.
//
// # Known limits
//
//   - Composite keys use hash buckets: the mirror's rows are hashed (one
//     scan for level 0, one for the dirty buckets) instead of digested
//     from the tree, and PostgreSQL scans twice when buckets are dirty.
//   - Level 0 of a table with at least Options.ParallelRows rows in the
//     mirror (default 1M) is split over Runner.Workers connections
//     (default 2) that import the pinned transaction's snapshot, by
//     ranges of heap blocks (TID range scans, PostgreSQL ≥ 14), with the
//     per-bucket (count, Σ H) of the parts added on the client, so the
//     digests are the serial scan's (parallel.go). This works for all
//     three bucket schemes; the mirror's side of hash buckets (a scan of
//     its rows) stays one goroutine. Smaller tables, Workers = 1 and
//     older servers use the serial scan on the pinned connection; the
//     leaf step and the differing rows always do.
//   - Single integer keys use fixed-width buckets floor(key/w), clamped
//     to the mirror's key range (clampedBucketDigestQuery; the mirror
//     digests the same ranges with DigestsBetween while PostgreSQL scans,
//     hashing the rows of about one leaf per bucket); other single-column
//     keys use the mirror's leaf boundaries (width_bucket over ~N/512
//     keys, which cost ~7% more PostgreSQL CPU than the division on 10M
//     integer keys).
package verify
