package sqlfront

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/mirror"
)

// TestResyncWindowSQLState: a read of a table at a version inside its
// resync window (mirror.ResyncWindowError, however wrapped) reaches the
// client as 55000 naming the table, not as an internal error (XX000).
func TestResyncWindowSQLState(t *testing.T) {
	err := fmt.Errorf("scan: %w", fmt.Errorf("tree of public.s at 0/10: %w", &mirror.ResyncWindowError{Table: "public.s", Version: 0x10, From: 0x8}))
	e := toError(err)
	if e.Code != "55000" || !strings.Contains(e.Msg, "public.s") || e.Hint == "" {
		t.Fatalf("toError: %+v", e)
	}
}
