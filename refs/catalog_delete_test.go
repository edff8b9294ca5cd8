package refs

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/store"
)

// TestDeletedRefIsAnEmptyRecord: deleting a tag or a branch leaves an
// empty record, never a Badger delete (see the catalog layout: Badger's
// value-log GC can bring a deleted key back), and every read treats it as
// absent: lookups, lists, a second delete, re-creation under the name.
func TestDeletedRefIsAnEmptyRecord(t *testing.T) {
	ctx := t.Context()
	db, err := store.Open(store.Options{Dir: t.TempDir(), CacheBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := NewCatalog(db)
	// A branch record past Badger's value threshold (1 KiB): many tables.
	b := Branch{Name: "wide", From: 100, Created: time.Unix(1, 0)}
	for i := range 60 {
		b.Roots = append(b.Roots, TableRoot{Table: "public.table_with_a_long_name_" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26)), Root: prolly.Root{}})
	}
	if n := len(encodeBranch(b)); n <= 1024 {
		t.Fatalf("branch record of %d bytes: want one stored in the value log", n)
	}
	if err := c.CreateBranch(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTag(ctx, Tag{Name: "t1", LSN: 50, Created: time.Unix(2, 0)}); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteBranch(ctx, "wide"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteTag(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	for _, k := range []byte{refBranch, refTag} {
		name := map[byte]string{refBranch: "wide", refTag: "t1"}[k]
		err := db.Badger().View(func(txn *badger.Txn) error {
			it, err := txn.Get(refKey(k, name))
			if err != nil {
				return err
			}
			if it.ValueSize() != 0 {
				t.Errorf("%s %s: a %d-byte record after delete", kindName(k), name, it.ValueSize())
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s %s: the record is gone (%v): a Badger delete", kindName(k), name, err)
		}
	}
	if _, found, err := c.Branch("wide"); found || err != nil {
		t.Fatalf("deleted branch found: %v %v", found, err)
	}
	if _, found, err := c.Tag("t1"); found || err != nil {
		t.Fatalf("deleted tag found: %v %v", found, err)
	}
	if bs, err := c.Branches(); len(bs) != 0 || err != nil {
		t.Fatalf("branches after delete: %v %v", bs, err)
	}
	if ts, err := c.Tags(); len(ts) != 0 || err != nil {
		t.Fatalf("tags after delete: %v %v", ts, err)
	}
	if err := c.DeleteTag(ctx, "t1"); !errors.Is(err, ErrUnknownRef) {
		t.Fatalf("second delete: %v, want ErrUnknownRef", err)
	}
	// The names are free again, for either kind.
	if err := c.CreateTag(ctx, Tag{Name: "wide", LSN: 60, Created: time.Unix(3, 0)}); err != nil {
		t.Fatal(err)
	}
	if tg, found, err := c.Tag("wide"); !found || err != nil || tg.LSN != 60 {
		t.Fatalf("re-created as a tag: %+v %v %v", tg, found, err)
	}
	if err := c.CreateBranch(ctx, Branch{Name: "t1", From: 70, Created: time.Unix(4, 0)}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateBranch(ctx, Branch{Name: "wide", From: 70, Created: time.Unix(4, 0)}); !errors.Is(err, ErrExists) {
		t.Fatalf("a branch named like a live tag: %v, want ErrExists", err)
	}
}
