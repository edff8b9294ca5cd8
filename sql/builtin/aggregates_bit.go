package builtin

import "github.com/sidecar-dev/sidecar/types"

// bitFold is bit_and/bit_or/bit_xor over bit (and bit varying, binary
// coercible to it): PostgreSQL's transition functions are bitand, bitor
// and bitxor themselves, so the first value starts the state, NULLs are
// skipped, and two strings of different lengths fail as the operator
// does (22026 "cannot AND bit strings of different sizes").
type bitFold struct {
	word string
	f    func(x, y byte) byte
	acc  *types.BitVal
}

// newBitFold is the state of name, one of bit_and, bit_or, bit_xor.
func newBitFold(name string) *bitFold {
	switch name {
	case "bit_and":
		return &bitFold{word: "AND", f: func(x, y byte) byte { return x & y }}
	case "bit_or":
		return &bitFold{word: "OR", f: func(x, y byte) byte { return x | y }}
	default:
		return &bitFold{word: "XOR", f: func(x, y byte) byte { return x ^ y }}
	}
}

func (s *bitFold) Step(v types.Value) error {
	b := bitsOf(v)
	if s.acc == nil {
		s.acc = &b
		return nil
	}
	r, err := bitCombine(*s.acc, b, s.word, s.f)
	if err != nil {
		return err
	}
	s.acc = &r
	return nil
}

func (s *bitFold) Final() (types.Value, error) {
	if s.acc == nil {
		return nil, nil
	}
	return *s.acc, nil
}
