package refs

import (
	"encoding/hex"
	"reflect"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/store"
)

// Byte-pinned catalog records (issue 12 item 6): a change made to encoder
// and decoder alike would pass a round trip and break every stored ref.

const (
	pinnedBranch = "0100000000016b374880948798bddc8fed31020a7075626c69632e224222a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b37370656330303031087075626c69632e61a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b37370656330303031"
	// pinnedTag is a tag at 0/16B3748 created 2026-12-01 12:00:00.5 UTC,
	// as CreateTag writes it.
	pinnedTag = "0100000000016b374880948798bddc8fed31"
)

func TestPinnedBranch(t *testing.T) {
	var root prolly.Root
	for i := range root.Hash {
		root.Hash[i] = byte(0xa0 + i)
	}
	copy(root.Spec[:], "spec0001")
	b := Branch{Name: "fix-1", From: 0x16B3748, Created: time.Date(2026, 12, 1, 12, 0, 0, 500000000, time.UTC),
		Roots: []TableRoot{{Table: "public.a", Root: root}, {Table: `public."B"`, Root: root}}}
	if h := hex.EncodeToString(encodeBranch(b)); h != pinnedBranch {
		t.Errorf("branch encodes to\n%s\nwant the pinned\n%s", h, pinnedBranch)
	}
	raw, _ := hex.DecodeString(pinnedBranch)
	got, err := decodeBranch(b.Name, raw)
	want := b
	want.Roots = []TableRoot{b.Roots[1], b.Roots[0]} // stored sorted by table
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("pinned branch decodes to %+v, %v; want %+v", got, err, want)
	}
}

func TestPinnedTag(t *testing.T) {
	raw, err := hex.DecodeString(pinnedTag)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeTag("v1", raw)
	want := Tag{Name: "v1", LSN: 0x16B3748, Created: time.Date(2026, 12, 1, 12, 0, 0, 500000000, time.UTC)}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("pinned tag decodes to %+v, %v; want %+v", got, err, want)
	}
}

// TestPinnedTagWrite pins what CreateTag writes (the encoding is inline
// there): the key 'r' 't' name and the pinned tag bytes, read back from
// the store. A branch's key is 'r' 'b' name.
func TestPinnedTagWrite(t *testing.T) {
	if h := hex.EncodeToString(refKey(refBranch, "fix-1")); h != "7262"+"6669782d31" {
		t.Errorf("branch key %s, want 7262 and the name", h)
	}
	db, err := store.Open(store.Options{Dir: t.TempDir(), CacheBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := NewCatalog(db)
	if err := c.CreateTag(t.Context(), Tag{Name: "v1", LSN: 0x16B3748, Created: time.Date(2026, 12, 1, 12, 0, 0, 500000000, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	key := refKey(refTag, "v1")
	if h := hex.EncodeToString(key); h != "7274"+"7631" {
		t.Errorf("tag key %s, want 7274 and the name", h)
	}
	err = db.Badger().View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if h := hex.EncodeToString(v); err == nil && h != pinnedTag {
			t.Errorf("CreateTag wrote\n%s\nwant the pinned\n%s", h, pinnedTag)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
