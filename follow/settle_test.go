package follow

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// durableSink is a wal.Sink whose durable LSN the test sets.
type durableSink struct {
	wal.Sink
	durable wal.LSN
}

func (d *durableSink) Durable() wal.LSN { return d.durable }

// TestSettleRecordsOnlyForward: Settle writes the LSN, with the mirror's
// durable LSN at that moment, before the stream acknowledges it, never
// moves it back, and ReadSettled reads zero for no or a damaged file (the
// check is then the durable LSN alone: stricter).
func TestSettleRecordsOnlyForward(t *testing.T) {
	dir := t.TempDir()
	if got := ReadSettled(dir); got != (Settled{}) {
		t.Fatalf("no file: %+v", got)
	}
	sink := &durableSink{}
	s := &settlingSink{Sink: sink, dir: dir}
	for _, step := range []struct {
		durable, settle wal.LSN
		want            Settled
	}{
		{0x80, 0x100, Settled{LSN: 0x100, Base: 0x80}},
		{0x90, 0x80, Settled{LSN: 0x100, Base: 0x80}}, // backwards: not written
		{0x1000, 0x2000, Settled{LSN: 0x2000, Base: 0x1000}},
	} {
		sink.durable = step.durable
		if err := s.Settle(step.settle); err != nil {
			t.Fatal(err)
		}
		if got := ReadSettled(dir); got != step.want {
			t.Fatalf("after Settle(%s) at durable %s: read %+v, want %+v", step.settle, step.durable, got, step.want)
		}
	}
	// A file of one LSN, as written before Base was recorded.
	if err := os.WriteFile(filepath.Join(dir, SettledFile), []byte("0/3000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := ReadSettled(dir); got != (Settled{LSN: 0x3000}) {
		t.Fatalf("one-LSN file: %+v", got)
	}
	for _, bad := range []string{"garbage", "0/10 0/20 0/30", "0/10 x", ""} {
		if err := os.WriteFile(filepath.Join(dir, SettledFile), []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := ReadSettled(dir); got != (Settled{}) {
			t.Fatalf("damaged file %q: %+v", bad, got)
		}
	}
	missing := &settlingSink{Sink: sink, dir: filepath.Join(dir, "missing", "dir")}
	if err := missing.Settle(0x10); err == nil {
		t.Fatal("Settle into a missing directory succeeded: the stream would acknowledge what is not recorded")
	}
}

// TestSlotCovered: a slot ahead of the mirror's durable LSN is this
// mirror's only up to the settled LSN, and only while the mirror still
// holds what it held when it settled.
func TestSlotCovered(t *testing.T) {
	for _, c := range []struct {
		name               string
		confirmed, durable wal.LSN
		st                 Settled
		refused            string // "" accepted, else a phrase of the error
	}{
		{"slot not ahead", 0x100, 0x100, Settled{}, ""},
		{"slot behind", 0x80, 0x100, Settled{LSN: 0x200, Base: 0x300}, ""},
		{"ahead, nothing settled", 0x200, 0x100, Settled{}, "acknowledged to another consumer"},
		{"ahead within settled", 0x200, 0x100, Settled{LSN: 0x200, Base: 0x100}, ""},
		{"ahead within settled, mirror moved on", 0x200, 0x180, Settled{LSN: 0x200, Base: 0x100}, ""},
		{"ahead past settled", 0x300, 0x100, Settled{LSN: 0x200, Base: 0x100}, "acknowledged to another consumer"},
		{"ahead within settled, old file", 0x200, 0x100, Settled{LSN: 0x200}, ""},
		{"mirror lost a synced write", 0x200, 0xf0, Settled{LSN: 0x200, Base: 0x100}, "writes it had synced are gone"},
	} {
		err := slotCovered("s", "/data", c.confirmed, c.durable, c.st)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.refused != "" && (err == nil || !errors.Is(err, ErrForeignSlot) || !strings.Contains(err.Error(), c.refused) || !strings.Contains(err.Error(), "--resync")):
			t.Errorf("%s: got %v, want ErrForeignSlot saying %q and --resync", c.name, err, c.refused)
		}
	}
}
