// Package prolly is the sidecar's versioned table store: a Prolly tree (a
// B+-tree whose node boundaries are a function of its content) over a
// content-addressed NodeStore. The same set of rows gives the same root hash
// whatever order or batching produced it, so versions share unchanged
// nodes, diffs and merges skip equal subtrees by hash, and two sidecars can
// compare tables by comparing 20 bytes.
//
// # API
//
// An Engine binds a NodeStore, a Spec and a RowHash; it holds no per-tree
// state and is safe for concurrent use. A tree is named by a Root (root
// address + SpecID), which is what callers persist. Trees are immutable:
//
//	e := prolly.NewDefaultEngine(store)
//	b := e.NewBuilder(ctx); b.Add(k, v)…; root, _ := b.Finish()   // bulk, streaming
//	root2, _ := e.Mutate(ctx, root, edits)                        // sorted puts/deletes
//	v, ok, _ := e.Get(ctx, root2, k)                              // also GetMany, Range, At, Count
//	d, _ := e.Diff(ctx, root, root2, prolly.DiffOptions{})        // for d.Next() { d.Entry() }
//	res, _ := e.Merge(ctx, base, ours, theirs, resolver)          // three-way
//	dg, _ := e.DigestRange(ctx, root2, start, end)                // (count, Σ rowhash)
//	err := e.Check(ctx, root2)                                    // full structural validation
//	st, _ := e.Stats(ctx, root2)                                  // nodes and bytes per level
//	err = e.Walk(ctx, root2, visit)                               // GC marking, internal nodes only
//
// Keys are byte strings compared with bytes.Compare (the order-preserving
// encoding of a primary key); values are opaque. Slices returned by reads
// alias immutable node memory: callers must not modify them, and may keep
// them.
//
// # Node format (FormatVersion 1)
//
// All integers little-endian. n is the entry count.
//
//	u8   format version (1)
//	u8   level (0 = leaf)
//	u32  n
//	u32  × n   key end offsets (key i is keys[end(i-1):end(i)], end(-1) = 0)
//	     key bytes
//	leaf:
//	u32  × n   value end offsets
//	     value bytes
//	internal:
//	[20]byte × n  child addresses
//	u64  × n      subtree row counts
//	u64  × n      subtree digests: Σ rowhash(key, value) mod 2^64 of the rows below
//
// Internal key i is the last key of child i; a lookup takes the first entry
// whose key is ≥ the target. The layout has no padding, maps or history, so
// equal content encodes to equal bytes. The address of a node is
// addr.Of(bytes): the first 20 bytes of SHA-256. DecodeNode validates
// untrusted bytes completely (exact length, monotone offsets, strictly
// increasing keys, non-zero counts) and never panics; FuzzDecodeNode checks
// that whatever it accepts re-encodes to the same bytes. Keys, values and
// entries are views into the bytes; decoding adds a search index (the keys'
// common prefix and, per entry, the next 8 bytes as a big-endian uint64, so
// a binary search compares integers in one contiguous array and touches key
// bytes only on ties: 8 bytes an entry, counted in the cache's bound) and,
// in internal nodes, slots for weak pointers to their decoded children.
//
// # Warm reads
//
// An Engine pins the root node it read last (Unpin drops it), and internal
// nodes keep weak pointers (package weak) to the decoded children they were
// read through ("pointer swizzling" that never extends a node's life: what
// stays in memory is still bounded by the store's cache). A warm point get
// thus follows pointers from the root to the leaf and asks the store for
// nothing while the path is resident: 10M rows, ~1.4 µs CPU a get (was
// 2.9-3.1).
//
// # Boundaries (Spec "xxh3-weibull/1")
//
// Dolt's key splitter, per level: S is the item bytes since the last
// boundary (an item's bytes are its share of the node encoding: key + value +
// 8 for a row, key + 40 for an entry). After appending an item that takes S
// from S₀ to S₁: no boundary while S₁ < 512; a boundary once S₁ > 16384;
// otherwise a boundary iff u < 1 − exp(−((S₁/λ)^k − (S₀/λ)^k)), with
// u = low32(xxh3(key, seed_level)) / 2^32, k = 4, λ = 4096 and
// seed_level the first 8 bytes (LE) of SHA-512 of the byte level+1. Node
// sizes then follow Weibull(4, 4096): mean ≈ 3.7 KiB, sd ≈ 1 KiB. Only keys
// are hashed, never values or child addresses, so a value update that keeps
// its size rewrites exactly one node per level. Internal nodes split only
// after ≥ 2 entries, which bounds the height whatever the key sizes.
//
// The float computation uses explicitly rounded products and math.Expm1; on
// platforms whose Expm1 differs in the last bit a boundary could differ with
// probability ~2^-50 per item. The golden test (TestGoldenRoot) pins the
// result on the build platforms.
//
// The Spec (format version, node hash, boundary rule, k, λ, min, max, row
// hash id) has a stable SpecID, stored in every Root; every operation refuses
// a Root from another spec (ErrSpecMismatch).
//
// # Invariants
//
// Checked by Engine.Check, which tests run after every mutation (building
// with -tags invariants adds assertions inside Mutate itself):
//
//   - a node's bytes hash to its address and decode;
//   - levels fall by one from the root to the leaves, which are at level 0;
//   - keys strictly increase across the whole tree;
//   - an internal entry's key is its child's last key; its count and digest
//     are the sums over the child's rows;
//   - internal nodes hold ≥ 2 entries, except the last node of a level
//     (boundaries depend on the prefix only, so the final node of a level
//     can hold a single entry);
//   - the root is canonical: a leaf (possibly the empty leaf) or an internal
//     node with ≥ 2 entries;
//   - rebuilding the rows from scratch gives the same root hash: every node
//     boundary is where the splitter puts it (history independence).
//
// # Mutation
//
// Mutate works level by level from the leaves. At each level, a window
// starts at the old node holding the first pending change (one node earlier
// when that change touches a node's first item and the boundary before it
// was forced by an oversized item), replays that node's items into a level
// writer so that the splitter state equals a from-scratch build's, applies
// the changes, and ends when a new boundary coincides with the start of an
// old node: from there the old and new trees cut identical nodes until the
// next change. The window's output is one change for the level above:
// "replace the entries in (last key before the window, last key of the last
// old node it consumed] by the entries of the new nodes". At and above the
// old root's level the whole level is rewritten (it is one node), and new
// levels are added while a level has more than one node; single-entry roots
// are then stripped. Untouched subtrees keep their addresses and are never
// read. Measured: 1.03 nodes written per level per isolated edit.
//
// Builder writes leaves through UncachedPutter when the store has it: a
// bulk build's leaves would otherwise fill the node cache (and the heap)
// with nodes nobody reads next; a 10M-row build peaked at 738 MiB RSS
// instead of 1.19 GiB.
//
// # Diff and merge
//
// Diff walks both trees with lazy cursors whose current element is either a
// row or a whole unread subtree; two subtrees with equal addresses at the
// same position are skipped without being read, otherwise the higher one is
// opened. The skip lives in the streaming iterator itself. Before opening a
// child, the walk reads ahead, in one GetMany, the children of the node it
// stands in that have no equal (same last key, same address) in the other
// tree's node at the same level: those are exactly the ones it will open
// unless boundaries moved, so cold diffs fetch in parallel without reading
// anything the walk skips (random diff of 10k at 10M: 26,805 nodes read
// either way). Merge streams the
// diff base→theirs and looks the changed keys up in ours in GetMany batches:
// this is the merge-join of the diffs base→ours and base→theirs restricted
// to the keys theirs changed, so its cost follows theirs' changes only. It
// applies the changes only theirs made to ours with Mutate and hands
// divergent changes to a Resolver; the unresolved ones are returned as a
// list and as a small tree (key → EncodeConflict).
//
// # Digests
//
// Internal entries carry (count, Σ rowhash mod 2^64) of their subtree, with
// the caller's RowHash (its ID is part of the Spec; verify/ computes the same
// function in PostgreSQL). DigestRange sums whole children from parent
// entries and hashes only the rows of the two boundary leaves: O(height) node
// reads for any range.
package prolly
