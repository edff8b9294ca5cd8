package heap

import (
	"errors"
	"os"
	"testing"
)

// TestPageFileCloseFile: CloseFile releases the descriptor now (the
// daemon calls it once every reader is gone); a read after it is a
// *PageError, not rows, a write an error, and a second call is harmless.
func TestPageFileCloseFile(t *testing.T) {
	pf := testPageFile(t, 0)
	h, _ := diskHeap(t, pf, 2000)
	_, ref := diskPage(t, h)
	if err := pf.CloseFile(); err != nil {
		t.Fatal(err)
	}
	if err := pf.CloseFile(); err != nil {
		t.Fatalf("second CloseFile: %v", err)
	}
	_, err := ref.read()
	var pe *PageError
	if !errors.As(err, &pe) || !errors.Is(err, os.ErrClosed) {
		t.Fatalf("read after CloseFile: %v, want a *PageError wrapping os.ErrClosed", err)
	}
	if _, _, err := pf.write(1, 1, []byte("image"), nil); err == nil {
		t.Fatal("write after CloseFile succeeded")
	}
}
