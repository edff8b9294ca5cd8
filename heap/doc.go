// Package heap holds one followed table's HEAD in memory as pages laid out
// for scans (issue 13, Deliver item 1). It is derived state: everything in
// it comes from the vrow1 rows of the Prolly tree (or the stream that built
// them) and can be rebuilt from there; it carries the LSN it reflects.
//
// # Pages
//
// A page is PAX: up to Config.PageRows slots, and per column one segment
// of typed values parsed once, at apply, from the column's canonical text
// (see Kind): int64 for the integer kinds, bool, dates (days since
// 2000-01-01) and timestamps (µs since 2000-01-01), float64 for floats,
// unscaled int64 + scale for numeric (exact, never a float), offsets and
// bytes for text and every other type; plus a NULL bitmap per column and
// live/dead bitmaps per page. Printing a value back reproduces
// PostgreSQL's output function byte for byte (checked against PostgreSQL
// in the tests); the rare value whose text the printer would not
// reproduce, and numerics beyond 18 digits or NaN/±Infinity, keep their
// text beside the value ("exceptions"), so every row round-trips to
// exactly its vrow1 bytes.
//
// # Row ids, updates, deletes, compaction
//
// A row id is page<<16 | slot (RowID). An update is in place when the
// changed values fit the page's varlen budget (Config.PageBytes; inserts
// fill only Config.FillFactor of it, leaving headroom), after a page-local
// compaction if garbage is in the way; otherwise the row moves and Apply
// returns its new id. A delete is soft: the slot is dead until compaction
// frees it. Incremental compaction (Vacuum, and automatically for pages of
// a batch past Config.DeadPercent) is page-local and keeps every live
// row's id; full compaction (Compact) rewrites densely and returns the
// renumbering. The free-space map is a stack of pages believed to have
// room, checked when popped.
//
// # Summaries
//
// Per page and per table, per column: count, NULL count, exact sums
// (128-bit for integers, a big decimal for numeric), min and max (kept
// exact: a batch that may have removed an extreme recomputes it before it
// is published). An unfiltered count/sum/min/max reads only these; a scan
// skips pages by their zone maps (Snapshot.PageStats).
//
// # Versions and readers
//
// One writer (Apply, Vacuum, Compact) and any number of readers. Each
// Apply builds a new version copy-on-write: a page the batch touches is
// copied once (header and bitmaps), and within it only the column
// segments the batch writes; varlen data is append-only and shared. The
// version is published with one atomic store, so a Snapshot sees exactly
// one applied batch, never part of one (the bank test checks it under
// -race). PageView hands a scan kernel the segments of a page with no
// allocation per row.
//
// # Memory and checkpoints
//
// Config.Memory (heap.memory) bounds the decoded pages: past it, pages
// written longest ago are kept compressed (s2 by default) with their
// summaries and bitmaps decoded, and decoded on demand. With a PageFile
// (Config.Pages) the compressed images are on disk instead, read back by
// pread through a scan-resistant PageCache (pagefile.go, pagecache.go).
// A checkpoint takes a cut (CutCheckpoint: one published version and the
// pages changed since the previous checkpoint, under the writer's lock for
// a moment) and writes it (Cut.Write; CheckpointGen is both) while batches
// go on being applied: the pages, compressed, through a PageStore in
// batches of at most CheckpointBatchBytes, then the manifest with the LSN
// they reflect (never one key per row), under a generation named by the
// caller, removing nothing: the
// previous generation stays whole until the caller's Retain (head calls it
// once its position record naming the new generation is durable, so a
// kill mid-checkpoint loses nothing). Checkpoint is both steps at once;
// OpenGen restores a generation, Open the newest. MemStore is the
// in-memory store for tests; store.HeapPages keeps them in Badger.
package heap
