package store

import (
	"errors"
	"fmt"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/internal/corrupt"
)

// ErrCorrupt matches every *CorruptError through errors.Is, for callers that
// only need to know "corruption" and not which node.
var ErrCorrupt = corrupt.New("corrupt node")

// ErrLocked is returned by Open when another process (or another Open in this
// process) holds the data directory.
var ErrLocked = errors.New("data directory is locked by another process")

// CorruptError reports a stored value that cannot be the node at Hash: its
// bytes do not hash to the address, its codec tag is unknown, or it does not
// decompress. The bytes are never handed to the caller.
type CorruptError struct {
	// Hash is the address that was read.
	Hash addr.Hash
	// Reason says what check failed, for the operator.
	Reason string
	// Err is the underlying cause (a decompression error), if any.
	Err error
}

// Error names the address and the failed check.
func (e *CorruptError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("corrupt node %s: %s: %v", e.Hash, e.Reason, e.Err)
	}
	return fmt.Sprintf("corrupt node %s: %s", e.Hash, e.Reason)
}

// Unwrap returns the underlying cause.
func (e *CorruptError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrCorrupt) and errors.Is(err, corrupt.Err) true
// for every CorruptError.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt || target == corrupt.Err }
