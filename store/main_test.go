package store

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: every DB
// is closed and every NodeStore's writer is waited for.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
