package invariants

import (
	"strings"
	"testing"
)

// TestCheck: a false condition panics exactly when the checks are built in;
// a true one never does.
func TestCheck(t *testing.T) {
	Check(true, "never")
	defer func() {
		r := recover()
		if Enabled != (r != nil) {
			t.Fatalf("Enabled=%v but recover()=%v", Enabled, r)
		}
		if r != nil && !strings.Contains(r.(string), "invariant violated: x=1") {
			t.Fatalf("panic message %q", r)
		}
	}()
	Check(false, "x=%d", 1)
}
