package verify

import (
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/mirror"
)

// TestDescribeBusyHeldCopy: a resync whose copy is built and held until
// the stream reaches its LSN says so, naming the LSN (it read "its copy
// has not started yet" before session 12).
func TestDescribeBusyHeldCopy(t *testing.T) {
	now := time.Date(2026, 12, 5, 20, 0, 0, 0, time.UTC)
	waiting := DescribeBusy(mirror.Busy{Table: "public.a", Resync: true, HeldFrom: 0x100}, now)
	if !strings.Contains(waiting, "its copy has not started yet") {
		t.Errorf("a resync not started: %q", waiting)
	}
	held := DescribeBusy(mirror.Busy{Table: "public.a", Resync: true, HeldFrom: 0x100, HeldUntil: 0x2000, CopyStarted: now.Add(-time.Minute)}, now)
	if !strings.Contains(held, "held until the stream reaches LSN 0/2000") || strings.Contains(held, "not started") || !strings.Contains(held, "1m0s ago") {
		t.Errorf("a held copy: %q", held)
	}
}
