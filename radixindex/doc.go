// Package radixindex is the mirror's in-memory primary-key index: an
// adaptive radix tree (Leis, Kemper, Neumann, ICDE 2013) from a table's
// memcmp-ordered key encoding (rowenc) to the row id of the row in the
// heap. It is derived state: it carries the LSN it reflects, is written
// to a checkpoint and restored from one without a rebuild, and is rebuilt
// in one pass from any sorted source of (key, row id) when the checkpoint
// is missing, corrupt or behind. No Go ART module is served to this
// project, so this one is ours.
//
// # Layout
//
// Inner nodes are the paper's four kinds (node4, node16, node48, node256)
// in typed, pointer-free slabs, so the garbage collector never scans the
// index; a child is a 64-bit ref with a 3-bit kind tag and either a slab
// index or, for a leaf, the row id itself. No leaf objects and no keys are
// stored: a lookup ends at a row id and checks the key through a KeyFunc
// (the heap's key of that row), which is what keeps an index of 8-byte
// keys under 16 bytes per key. Paths with one way through are compressed
// into the node below (hybrid: eight bytes stored, a longer path skipped
// by readers and checked at the leaf, read from a leaf's key by the
// writer), and a subtree with one key is just its leaf (lazy expansion).
// A node that grows or shrinks leaves its old slot for the next node of
// that kind; Compact (or a checkpoint's Restore) packs the slabs densely.
// A slab is a list of fixed chunks (≈ 16 KiB), which are also the unit of
// copy-on-write: Index.Freeze shares them with a frozen view for a
// checkpoint to encode, and the writer copies a chunk the first time it
// changes it after the freeze.
//
// Keys are arbitrary byte strings. rowenc keys of one table never prefix
// one another (every column encoding is self-delimiting), but the tree
// does not rely on it: a key that ends where a node branches lives in the
// node's end slot, which sorts before the node's children.
//
// # Concurrency
//
// A Tree has one writer and many readers, serialised by the caller; Index
// does it with a read-write lock held per applied batch, so a reader sees
// exactly one committed state, and a long Scan releases the lock between
// chunks and seeks again past its last key when a batch came in between.
// See Index for the protocol.
//
// # Costs
//
// Measured figures (bytes per key, lookup, insert, scan, bulk load at 1M
// and 10M keys) are in bench/results/radixindex-*.md, with the method.
package radixindex
