package follow

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestSettleRecordsOnlyForward: Settle writes the LSN before the stream
// acknowledges it, never moves it back, and ReadSettled reads 0 for no or
// a damaged file (the check is then the durable LSN alone: stricter).
func TestSettleRecordsOnlyForward(t *testing.T) {
	dir := t.TempDir()
	if got := ReadSettled(dir); got != 0 {
		t.Fatalf("no file: %s", got)
	}
	s := &settlingSink{dir: dir}
	for _, step := range []struct{ settle, want wal.LSN }{{0x100, 0x100}, {0x80, 0x100}, {0x2000, 0x2000}} {
		if err := s.Settle(step.settle); err != nil {
			t.Fatal(err)
		}
		if got := ReadSettled(dir); got != step.want {
			t.Fatalf("after Settle(%s): read %s, want %s", step.settle, got, step.want)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, SettledFile), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := ReadSettled(dir); got != 0 {
		t.Fatalf("damaged file: %s", got)
	}
	bad := &settlingSink{dir: filepath.Join(dir, "missing", "dir")}
	if err := bad.Settle(0x10); err == nil {
		t.Fatal("Settle into a missing directory succeeded: the stream would acknowledge what is not recorded")
	}
}
