package refs

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/internal/corrupt"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// On-disk layout of refs, under store.PrefixRef ('r'). Tags and branches
// share one namespace (a name is either), so lookups by name need no
// precedence rule.
//
//	'r' 't' name   tag: record version (1), end LSN of the tagged commit
//	               (8 bytes big-endian), creation time (varint unix ns)
//	'r' 'b' name   branch: record version (1), end LSN of the commit it was
//	               made from (8 bytes), creation time (varint unix ns),
//	               uvarint table count, then per table (sorted by name):
//	               uvarint name length, name, 20-byte root address, 8-byte
//	               spec id
//
// A deleted tag or branch is an empty value, never a Badger delete: Badger
// v4.9.6's value-log GC can write back an older version of a deleted key
// whose value sits in the value log (a branch record of many tables does)
// after compaction has dropped the tombstone, and the name would come back
// (measured with node keys). A newer live value is never dropped, so it
// always shadows what the GC writes back.
const (
	refTag    byte = 't'
	refBranch byte = 'b'
	refFormat byte = 1
)

// ErrExists is wrapped by errors about creating a tag or branch whose name
// is taken.
var ErrExists = errors.New("name already in use")

// Tag is a named, retained commit of the mirror's history.
type Tag struct {
	Name    string
	LSN     wal.LSN // end LSN of the tagged commit
	Created time.Time
}

// TableRoot is one table's tree in a branch.
type TableRoot struct {
	Table string
	Root  prolly.Root
}

// Branch is a named, writable set of per-table roots that replication
// never touches: merge results land here. From is the commit of the
// mirror's history the branch started from (its common ancestor with the
// mirror); Roots are its trees, whose nodes are in the mirror's node store.
type Branch struct {
	Name    string
	From    wal.LSN
	Created time.Time
	Roots   []TableRoot
}

// Root returns the branch's tree of table.
func (b *Branch) Root(table string) (prolly.Root, bool) {
	for _, r := range b.Roots {
		if r.Table == table {
			return r.Root, true
		}
	}
	return prolly.Root{}, false
}

// Catalog stores tags and branches in the data directory's Badger under
// store.PrefixRef. It is safe for concurrent use (Badger transactions;
// a create fails with ErrExists rather than overwrite a concurrent one).
type Catalog struct {
	bdb *badger.DB
}

// NewCatalog returns the ref catalog of db.
func NewCatalog(db *store.DB) *Catalog { return &Catalog{bdb: db.Badger()} }

func refKey(kind byte, name string) []byte {
	return append([]byte{store.PrefixRef, kind}, name...)
}

// CreateTag stores t; it fails with ErrExists when a tag or branch already
// has the name.
func (c *Catalog) CreateTag(ctx context.Context, t Tag) error {
	if err := ValidateName(t.Name); err != nil {
		return fmt.Errorf("tag %q: %w", t.Name, err)
	}
	v := []byte{refFormat}
	v = binary.BigEndian.AppendUint64(v, uint64(t.LSN))
	v = binary.AppendVarint(v, t.Created.UnixNano())
	return c.create(ctx, refTag, t.Name, v)
}

// CreateBranch stores b; it fails with ErrExists when a tag or branch
// already has the name. Callers must have flushed the nodes of b.Roots.
func (c *Catalog) CreateBranch(ctx context.Context, b Branch) error {
	if err := ValidateName(b.Name); err != nil {
		return fmt.Errorf("branch %q: %w", b.Name, err)
	}
	return c.create(ctx, refBranch, b.Name, encodeBranch(b))
}

func encodeBranch(b Branch) []byte {
	roots := append([]TableRoot(nil), b.Roots...)
	sort.Slice(roots, func(i, j int) bool { return roots[i].Table < roots[j].Table })
	v := []byte{refFormat}
	v = binary.BigEndian.AppendUint64(v, uint64(b.From))
	v = binary.AppendVarint(v, b.Created.UnixNano())
	v = binary.AppendUvarint(v, uint64(len(roots)))
	for _, r := range roots {
		v = binary.AppendUvarint(v, uint64(len(r.Table)))
		v = append(v, r.Table...)
		v = append(v, r.Root.Hash[:]...)
		v = append(v, r.Root.Spec[:]...)
	}
	return v
}

func (c *Catalog) create(ctx context.Context, kind byte, name string, val []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// Idempotent up to ErrExists, which a retry after a blocked write
	// cannot meet (the blocked transaction did not commit).
	err := store.RetryBlocked(ctx, func() error {
		return c.bdb.Update(func(txn *badger.Txn) error {
			for _, k := range []byte{refTag, refBranch} {
				it, err := txn.Get(refKey(k, name))
				if err == nil && it.ValueSize() > 0 {
					return fmt.Errorf("%q is already a %s: %w", name, kindName(k), ErrExists)
				}
				if err != nil && !errors.Is(err, badger.ErrKeyNotFound) {
					return err
				}
			}
			return txn.Set(refKey(kind, name), val)
		})
	})
	if err != nil {
		return fmt.Errorf("create %s %q: %w", kindName(kind), name, err)
	}
	return nil
}

func kindName(k byte) string {
	if k == refTag {
		return "tag"
	}
	return "branch"
}

// DeleteTag removes a tag; deleting a name that is not a tag is an error
// wrapping ErrUnknownRef.
func (c *Catalog) DeleteTag(ctx context.Context, name string) error {
	return c.delete(ctx, refTag, name)
}

// DeleteBranch removes a branch (its nodes become garbage for GC).
func (c *Catalog) DeleteBranch(ctx context.Context, name string) error {
	return c.delete(ctx, refBranch, name)
}

func (c *Catalog) delete(ctx context.Context, kind byte, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := store.RetryBlocked(ctx, func() error {
		return c.bdb.Update(func(txn *badger.Txn) error {
			it, err := txn.Get(refKey(kind, name))
			if errors.Is(err, badger.ErrKeyNotFound) || err == nil && it.ValueSize() == 0 {
				return fmt.Errorf("no %s named %q: %w", kindName(kind), name, ErrUnknownRef)
			}
			if err != nil {
				return err
			}
			return txn.Set(refKey(kind, name), []byte{}) // see the layout: not Delete
		})
	})
	if err != nil {
		return fmt.Errorf("delete %s %q: %w", kindName(kind), name, err)
	}
	return nil
}

// Tag returns the tag name, if there is one.
func (c *Catalog) Tag(name string) (Tag, bool, error) {
	var t Tag
	found, err := c.get(refTag, name, func(v []byte) (err error) {
		t, err = decodeTag(name, v)
		return err
	})
	return t, found, err
}

// Branch returns the branch name, if there is one.
func (c *Catalog) Branch(name string) (Branch, bool, error) {
	var b Branch
	found, err := c.get(refBranch, name, func(v []byte) (err error) {
		b, err = decodeBranch(name, v)
		return err
	})
	return b, found, err
}

func (c *Catalog) get(kind byte, name string, decode func([]byte) error) (bool, error) {
	found := false
	err := c.bdb.View(func(txn *badger.Txn) error {
		it, err := txn.Get(refKey(kind, name))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if it.ValueSize() == 0 {
			return nil // deleted
		}
		found = true
		return it.Value(decode)
	})
	if err != nil {
		return false, fmt.Errorf("read %s %q: %w", kindName(kind), name, err)
	}
	return found, nil
}

// Tags lists every tag by name.
func (c *Catalog) Tags() ([]Tag, error) {
	var out []Tag
	err := c.list(refTag, func(name string, v []byte) error {
		t, err := decodeTag(name, v)
		out = append(out, t)
		return err
	})
	return out, err
}

// Branches lists every branch by name.
func (c *Catalog) Branches() ([]Branch, error) {
	var out []Branch
	err := c.list(refBranch, func(name string, v []byte) error {
		b, err := decodeBranch(name, v)
		out = append(out, b)
		return err
	})
	return out, err
}

func (c *Catalog) list(kind byte, fn func(name string, v []byte) error) error {
	prefix := []byte{store.PrefixRef, kind}
	err := c.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true, PrefetchSize: 64})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if it.Item().ValueSize() == 0 {
				continue // deleted
			}
			name := string(it.Item().Key()[len(prefix):])
			if err := it.Item().Value(func(v []byte) error { return fn(name, v) }); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("list %ss: %w", kindName(kind), err)
	}
	return nil
}

// errCorrupt is wrapped by errors about a tag or branch record that does
// not decode.
var errCorrupt = corrupt.New("corrupt record")

func decodeTag(name string, v []byte) (Tag, error) {
	if len(v) < 9 || v[0] != refFormat {
		return Tag{}, fmt.Errorf("tag %q: %w (%d bytes)", name, errCorrupt, len(v))
	}
	ns, n := binary.Varint(v[9:])
	if n <= 0 {
		return Tag{}, fmt.Errorf("tag %q: %w: creation time", name, errCorrupt)
	}
	return Tag{Name: name, LSN: wal.LSN(binary.BigEndian.Uint64(v[1:9])), Created: time.Unix(0, ns).UTC()}, nil
}

func decodeBranch(name string, v []byte) (Branch, error) {
	bad := func(what string) (Branch, error) {
		return Branch{}, fmt.Errorf("branch %q: %w: %s", name, errCorrupt, what)
	}
	if len(v) < 9 || v[0] != refFormat {
		return bad("header")
	}
	b := Branch{Name: name, From: wal.LSN(binary.BigEndian.Uint64(v[1:9]))}
	v = v[9:]
	ns, n := binary.Varint(v)
	if n <= 0 {
		return bad("creation time")
	}
	b.Created, v = time.Unix(0, ns).UTC(), v[n:]
	count, n := binary.Uvarint(v)
	if n <= 0 || count > uint64(len(v)) {
		return bad("table count")
	}
	v = v[n:]
	for range count {
		l, n := binary.Uvarint(v)
		if n <= 0 || uint64(len(v)-n) < l+28 {
			return bad("table entry")
		}
		v = v[n:]
		tr := TableRoot{Table: string(v[:l])}
		v = v[l:]
		copy(tr.Root.Hash[:], v[:20])
		copy(tr.Root.Spec[:], v[20:28])
		v = v[28:]
		b.Roots = append(b.Roots, tr)
	}
	if len(v) != 0 {
		return bad("trailing bytes")
	}
	return b, nil
}
