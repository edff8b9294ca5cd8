package prolly

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/sidecar-dev/sidecar/internal/corrupt"
)

// KeyState is a key's state in one tree: absent, or present with Value.
type KeyState struct {
	Value  []byte
	Exists bool
}

func (v KeyState) equal(o KeyState) bool {
	return v.Exists == o.Exists && (!v.Exists || bytes.Equal(v.Value, o.Value))
}

// ConflictKind classifies a key both sides changed differently.
type ConflictKind uint8

// Kinds of conflict.
const (
	ModifyModify ConflictKind = iota + 1 // both changed (or added) the row, differently
	DeleteModify                         // ours deleted it, theirs changed it
	ModifyDelete                         // ours changed it, theirs deleted it
)

// String returns "modify/modify", "delete/modify" or "modify/delete".
func (k ConflictKind) String() string {
	switch k {
	case ModifyModify:
		return "modify/modify"
	case DeleteModify:
		return "delete/modify"
	case ModifyDelete:
		return "modify/delete"
	}
	return fmt.Sprintf("ConflictKind(%d)", uint8(k))
}

// Conflict is a key changed differently by both sides. Byte slices may
// alias node memory and must not be modified.
type Conflict struct {
	Key                []byte
	Kind               ConflictKind
	Base, Ours, Theirs KeyState
}

// Resolution is a Resolver's answer: Resolved with the merged version (a
// version that does not exist deletes the key), or not resolved: a conflict.
type Resolution struct {
	Resolved bool
	Merged   KeyState
}

// Resolver decides divergent changes. The sidecar's resolver merges rows
// column by column (columns changed on one side only); a Resolver must be
// deterministic and must not retain c's slices beyond the call unless it
// treats them as read-only.
type Resolver func(c Conflict) (Resolution, error)

// ReportConflicts is the default Resolver: every divergent change is a conflict.
func ReportConflicts(Conflict) (Resolution, error) { return Resolution{}, nil }

// MergeResult is the outcome of a three-way merge.
type MergeResult struct {
	// Root is ours with theirs' non-conflicting changes applied; conflicting
	// keys keep ours' version.
	Root Root
	// Conflicts lists unresolved divergent changes in key order.
	Conflicts []Conflict
	// ConflictRoot is the same list as a tree: key → EncodeConflict value.
	ConflictRoot Root
	// Applied counts changes of theirs applied to ours (resolved ones included).
	Applied int
	// Resolved counts divergent changes the resolver settled.
	Resolved int
}

// mergeBatch bounds the edits buffered before they are applied to ours;
// mergeLookups the changes of theirs looked up in ours at once.
const (
	mergeBatch   = 1 << 16
	mergeLookups = 1 << 12
)

// Merge merges theirs into ours against their common ancestor base. It
// streams the diff base→theirs and looks each changed key up in ours (one
// GetMany per batch): where ours still holds the base version, only theirs
// changed the key and the change is applied to ours with Mutate (so ours' own
// changes are never rewritten); where ours holds theirs' version, both made
// the same change; otherwise both changed it differently and resolve decides
// (nil means ReportConflicts). This is the merge-join of the two diffs
// against base, restricted to the keys theirs changed: keys only ours
// changed are never visited. Cost: O(k_theirs · height) reads and writes,
// independent of the size of the trees and of ours' changes.
func (e *Engine) Merge(ctx context.Context, base, ours, theirs Root, resolve Resolver) (MergeResult, error) {
	if resolve == nil {
		resolve = ReportConflicts
	}
	res := MergeResult{Root: ours, ConflictRoot: e.EmptyRoot()}
	if err := e.check(base); err != nil {
		return res, err
	}
	if err := e.check(ours); err != nil {
		return res, err
	}
	if err := e.check(theirs); err != nil {
		return res, err
	}
	dt, err := e.Diff(ctx, base, theirs, DiffOptions{})
	if err != nil {
		return res, fmt.Errorf("merge: diff base→theirs: %w", err)
	}
	var edits []Edit
	flush := func() error {
		if len(edits) == 0 {
			return nil
		}
		r, err := e.Mutate(ctx, res.Root, edits)
		if err != nil {
			return fmt.Errorf("merge: apply %d edits: %w", len(edits), err)
		}
		res.Root, res.Applied, edits = r, res.Applied+len(edits), edits[:0]
		return nil
	}
	// Each batch of theirs' changes is looked up in ours in one GetMany:
	// where ours still holds the base version, only theirs changed the key.
	var batch []DiffEntry
	var keys [][]byte
	join := func() error {
		keys = keys[:0]
		for _, t := range batch {
			keys = append(keys, t.Key)
		}
		err := e.GetMany(ctx, ours, keys, func(i int, v []byte, found bool) error {
			t := &batch[i]
			ov, tv, bv := KeyState{Value: v, Exists: found}, after(*t), before(*t)
			switch {
			case ov.equal(bv): // only theirs changed the key
				edits = append(edits, editOf(t.Key, tv))
				return nil
			case ov.equal(tv): // both made the same change
				return nil
			}
			cf := Conflict{Key: t.Key, Base: bv, Ours: ov, Theirs: tv, Kind: ModifyModify}
			switch {
			case !ov.Exists:
				cf.Kind = DeleteModify
			case !tv.Exists:
				cf.Kind = ModifyDelete
			}
			r, err := resolve(cf)
			if err != nil {
				return fmt.Errorf("merge: resolve key %x: %w", t.Key, err)
			}
			switch {
			case !r.Resolved:
				res.Conflicts = append(res.Conflicts, cf)
			case r.Merged.equal(ov):
				res.Resolved++
			default:
				res.Resolved++
				edits = append(edits, editOf(t.Key, r.Merged))
			}
			return nil
		})
		batch = batch[:0]
		if err != nil {
			return fmt.Errorf("merge: look up theirs' changes in ours: %w", err)
		}
		if len(edits) >= mergeBatch {
			return flush()
		}
		return nil
	}
	for dt.Next() {
		batch = append(batch, dt.Entry())
		if len(batch) == mergeLookups {
			if err := join(); err != nil {
				return res, err
			}
		}
	}
	if err := dt.Err(); err != nil {
		return res, fmt.Errorf("merge: %w", err)
	}
	if err := join(); err != nil {
		return res, err
	}
	if err := flush(); err != nil {
		return res, err
	}
	if len(res.Conflicts) > 0 {
		b := e.NewBuilder(ctx)
		var buf []byte
		for _, cf := range res.Conflicts {
			buf = EncodeConflict(buf[:0], cf)
			if err := b.Add(cf.Key, buf); err != nil {
				return res, fmt.Errorf("merge: conflict tree: %w", err)
			}
		}
		if res.ConflictRoot, err = b.Finish(); err != nil {
			return res, fmt.Errorf("merge: conflict tree: %w", err)
		}
	}
	return res, nil
}

func after(d DiffEntry) KeyState  { return KeyState{Value: d.To, Exists: d.Kind != Removed} }
func before(d DiffEntry) KeyState { return KeyState{Value: d.From, Exists: d.Kind != Added} }

func editOf(key []byte, v KeyState) Edit {
	return Edit{Key: key, Value: v.Value, Delete: !v.Exists}
}

// EncodeConflict appends the conflict tree's value for c to dst: the kind
// byte, then base, ours and theirs, each a presence byte (0 absent, 1
// present) and, when present, a uvarint length and the bytes.
func EncodeConflict(dst []byte, c Conflict) []byte {
	dst = append(dst, byte(c.Kind))
	for _, v := range []KeyState{c.Base, c.Ours, c.Theirs} {
		if !v.Exists {
			dst = append(dst, 0)
			continue
		}
		dst = append(dst, 1)
		dst = binary.AppendUvarint(dst, uint64(len(v.Value)))
		dst = append(dst, v.Value...)
	}
	return dst
}

// ErrCorruptConflict is in the chain of every DecodeConflict error: the
// bytes are not a row EncodeConflict wrote.
var ErrCorruptConflict = corrupt.New("corrupt conflict row")

// uvarintLen is the length of n as a minimal unsigned varint.
func uvarintLen(n uint64) int {
	k := 1
	for ; n >= 0x80; n >>= 7 {
		k++
	}
	return k
}

// DecodeConflict parses a conflict tree row. Exactly the bytes
// EncodeConflict writes are accepted; anything else (unknown kind or
// presence byte, truncated, padded lengths, trailing bytes) is an error
// wrapping ErrCorruptConflict.
func DecodeConflict(key, value []byte) (Conflict, error) {
	c := Conflict{Key: key}
	if len(value) < 1 {
		return c, fmt.Errorf("decode conflict %x: %w: empty value", key, ErrCorruptConflict)
	}
	c.Kind, value = ConflictKind(value[0]), value[1:]
	if c.Kind < ModifyModify || c.Kind > ModifyDelete {
		return c, fmt.Errorf("decode conflict %x: %w: unknown kind %d", key, ErrCorruptConflict, c.Kind)
	}
	for _, v := range []*KeyState{&c.Base, &c.Ours, &c.Theirs} {
		if len(value) < 1 {
			return c, fmt.Errorf("decode conflict %x: %w: truncated", key, ErrCorruptConflict)
		}
		present := value[0]
		value = value[1:]
		switch present {
		case 0:
			continue
		case 1:
		default:
			return c, fmt.Errorf("decode conflict %x: %w: presence byte %d", key, ErrCorruptConflict, present)
		}
		n, k := binary.Uvarint(value)
		if k <= 0 || n > uint64(len(value)-k) {
			return c, fmt.Errorf("decode conflict %x: %w: bad length", key, ErrCorruptConflict)
		}
		// INVARIANT: lengths are minimal varints (EncodeConflict writes
		// nothing else), so a decoded row re-encodes to its own bytes; a
		// padded one (0x80 0x00 for 0) is corruption, not another spelling.
		if k != uvarintLen(n) {
			return c, fmt.Errorf("decode conflict %x: %w: non-minimal length varint", key, ErrCorruptConflict)
		}
		v.Exists, v.Value = true, value[k:k+int(n):k+int(n)]
		value = value[k+int(n):]
	}
	if len(value) != 0 {
		return c, fmt.Errorf("decode conflict %x: %w: %d trailing bytes", key, ErrCorruptConflict, len(value))
	}
	return c, nil
}
