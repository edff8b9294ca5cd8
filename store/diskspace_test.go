package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/addr"
)

type bytesCodec struct{}

func (bytesCodec) Decode(b []byte) ([]byte, error) { return b, nil }
func (bytesCodec) Size(b []byte) int               { return len(b) }

// TestCheckSpace: a store whose file system has less than MinFree free
// refuses to open for writing, and an open one refuses node batches once
// free space is under MinFree, with ErrDiskFull and the numbers; read-only
// opens and MinFree 0 check nothing.
func TestCheckSpace(t *testing.T) {
	dir := t.TempDir()
	free, err := FreeBytes(dir)
	if err != nil || free == 0 {
		t.Fatalf("FreeBytes: %d, %v", free, err)
	}
	_, err = Open(Options{Dir: dir, MinFree: free * 4})
	var full *DiskFullError
	if !errors.Is(err, ErrDiskFull) || !errors.As(err, &full) || full.Free == 0 || !strings.Contains(err.Error(), "is full (") {
		t.Fatalf("open with MinFree over the free space: %v", err)
	}
	db, err := Open(Options{Dir: dir, MinFree: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CheckSpace(); err != nil {
		t.Fatalf("1 byte of headroom: %v", err)
	}
	db.opts.MinFree = free * 4 // the disk filled meanwhile
	ns := NewNodeStore[[]byte](db, bytesCodec{})
	node := []byte("a node written once the disk is full")
	if err := ns.Put(context.Background(), addr.Of(node), node, node); err != nil && !errors.Is(err, ErrDiskFull) {
		t.Fatal(err)
	}
	if err := ns.Flush(context.Background()); !errors.Is(err, ErrDiskFull) {
		t.Fatalf("a node batch on a full disk: %v", err)
	}
	db.opts.MinFree = 0
	if err := db.CheckSpace(); err != nil {
		t.Fatalf("MinFree 0: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
