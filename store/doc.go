// Package store is the byte-level persistence of the sidecar: one Badger
// database per data directory (DB), and on it a content-addressed,
// compressed, verified store of Prolly nodes with a decoded-node cache
// (NodeStore).
package store

// Key prefixes: the registry of the one Badger keyspace. Every key starts
// with one of these bytes; a package writes only under its own.
const (
	// PrefixNode: 'n' + 20-byte address → tag byte + compressed node
	// (store). Immutable once written.
	PrefixNode byte = 'n'
	// PrefixCatalog: versions per table, LSN → roots (snapshot).
	PrefixCatalog byte = 'c'
	// PrefixRef: tags and branches, name → root (snapshot).
	PrefixRef byte = 'r'
	// PrefixSpool: per-commit change log between persisted roots (mirror).
	PrefixSpool byte = 's'
	// PrefixHeap: heap pages written at checkpoints (heap).
	PrefixHeap byte = 'h'
	// PrefixIndex: radix index checkpoints (radixindex).
	PrefixIndex byte = 'x'
	// PrefixMeta: store-wide metadata: format version, durable LSN (mirror).
	PrefixMeta byte = 'm'
)
