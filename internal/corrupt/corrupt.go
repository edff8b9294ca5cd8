// Package corrupt is the one marker of corrupt data. Every error that says
// stored or received bytes fail their own format (a Prolly node, a key, a
// vrow1 row, a mirror or catalog record, a checkpoint) wraps [Err], so a
// caller tells corruption, which no retry fixes, from an ordinary failure
// with a single errors.Is(err, corrupt.Err), whichever layer found it.
//
// Each package keeps its own sentinel (prolly.ErrCorruptNode,
// rowenc.ErrCorruptKey, ...) for callers that care which format broke;
// [New] makes such a sentinel carry the marker without changing its
// message.
package corrupt

import "errors"

// Err is in the chain of every corrupt-data error of the sidecar.
var Err = errors.New("corrupt data")

// New returns a sentinel error with message msg for which errors.Is(e, Err)
// holds (and errors.Is(e, e), as for errors.New).
func New(msg string) error { return &sentinel{msg: msg} }

type sentinel struct{ msg string }

func (s *sentinel) Error() string { return s.msg }

// Is makes a sentinel match the marker.
func (s *sentinel) Is(target error) bool { return target == Err }
