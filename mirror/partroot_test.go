package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestPartRootRecords: a partitioned root's record decodes to what was
// written, a data directory without one answers nil (written before
// they existed), an unchanged root writes nothing, a changed one a new
// record, and the records survive a reopen.
func TestPartRootRecords(t *testing.T) {
	ctx := t.Context()
	db, err := store.Open(store.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := Open(ctx, Options{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := m.PartRootAt("public.meas", wal.LSN(^uint64(0))); err != nil || p != nil {
		t.Fatalf("no record: %v, %v", p, err)
	}
	pr := &wal.PartRoot{Name: "public.meas",
		Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1}, {Name: "v", TypeOID: 1043, TypeMod: 14,
			Collation: wal.Collation{Name: "default", Locale: "libc C", Order: wal.CollBytes}}},
		Leaves: []string{"public.meas_1", "public.meas_2"}, LeafKinds: []byte{'r', 'f'}}
	got, err := decodePartRoot(encodePartRoot(pr))
	if err != nil || !got.Equal(pr) {
		t.Fatalf("decoded %+v (%v), want %+v", got, err, pr)
	}
	if changed, err := m.UpdatePartRoots(ctx, []*wal.PartRoot{pr}); err != nil || !changed {
		t.Fatalf("first record: changed %v, %v", changed, err)
	}
	if changed, err := m.UpdatePartRoots(ctx, []*wal.PartRoot{pr}); err != nil || changed {
		t.Fatalf("same record again: changed %v, %v", changed, err)
	}
	pr2 := *pr
	pr2.Leaves, pr2.LeafKinds = []string{"public.meas_2"}, []byte{'r'}
	if changed, err := m.UpdatePartRoots(ctx, []*wal.PartRoot{&pr2}); err != nil || !changed {
		t.Fatalf("detach: changed %v, %v", changed, err)
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	m, err = Open(ctx, Options{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	if p, err := m.PartRootAt("public.meas", 0); err != nil || !p.Equal(&pr2) {
		t.Fatalf("after reopen: %+v, %v; want %+v", p, err, pr2)
	}
	if p, err := m.PartRootAt("public.other", 0); err != nil || p != nil {
		t.Fatalf("another root: %+v, %v", p, err)
	}
}
