package radixindex

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// mapReadOnly writes b to a file and maps it read-only (PROT_READ, as
// the checkpoint's image files are): a write into the mapping faults.
func mapReadOnly(t *testing.T, b []byte) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "image")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, len(b), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(m) })
	return m
}

// TestMapImage: an index over a read-only mapping of its image
// (MapImage) has the written tree's nodes, and goes on taking writes —
// freezes and releases between them — checked against the model: every
// change copies the mapped chunk it touches (a write into the mapping
// would fault), the mapped bytes stay as written, and VerifyImage finds
// every page's checksum and refuses a flipped byte.
func TestMapImage(t *testing.T) {
	forEachGen(t, 700, func(t *testing.T, rng *rand.Rand, g keyGen, seed uint64) {
		rs, tr, m := churnTree(rng, g, 3000, 3)
		var buf bytes.Buffer
		if _, err := tr.WriteImage(&buf, 17); err != nil {
			t.Fatal(err)
		}
		img := bytes.Clone(buf.Bytes())
		if err := VerifyImage(bytes.NewReader(img)); err != nil {
			t.Fatalf("seed %d: VerifyImage: %v", seed, err)
		}
		mapped := mapReadOnly(t, img)
		ix, err := MapImage(mapped, rs.keyOf)
		if err != nil || ix.LSN() != 17 {
			t.Fatalf("seed %d: MapImage: lsn %d, %v", seed, ix.LSN(), err)
		}
		back := ix.t
		sameMappedTree(t, seed, back, tr)
		if back.MappedBytes() == 0 && back.n > 1 {
			t.Fatalf("seed %d: no chunk is mapped", seed)
		}
		f := ix.Freeze()
		f.Release() // unshare: mapped chunks must stay not the writer's
		runModel(t, rng, g, 2000, seed, back, rs, m)
		if !bytes.Equal(mapped, img) {
			t.Fatalf("seed %d: the mapping changed under the writes", seed)
		}
		for _, at := range []int{imageHeaderSize + 20, len(img) - 9} {
			bad := bytes.Clone(img)
			bad[at] ^= 0x40
			if err := VerifyImage(bytes.NewReader(bad)); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("seed %d: VerifyImage of an image flipped at %d: %v", seed, at, err)
			}
		}
	})
}
