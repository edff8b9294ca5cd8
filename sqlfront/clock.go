package sqlfront

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
	"time"

	"github.com/sidecar-dev/sidecar/sql/builtin"
)

// libraryContext is what the function library reads besides a call's
// arguments, owned by the session and handed to both paths (the flat
// evaluator per call, sql/exec once per statement): the transaction's
// start (now(), current_timestamp, transaction_timestamp(): one value
// for every call of the transaction, as PostgreSQL), the statement's
// start (statement_timestamp()), the wall clock (clock_timestamp()) and
// the session's random source (random()). The source is seeded from
// the operating system once per session, as a PostgreSQL backend seeds
// its own; setseed() is not offered (PostgreSQL's sequence for a seed
// is its own generator's).
func (s *session) libraryContext() *builtin.Context {
	if s.rng == nil {
		var seed [16]byte
		_, _ = crand.Read(seed[:]) // never fails on the supported systems (crypto/rand's contract)
		s.rng = rand.New(rand.NewPCG(binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:])))
	}
	return &builtin.Context{TxnStart: s.txStart, StmtStart: s.stmtStart, Clock: time.Now, Random: s.rng.Float64, Zone: s.sessionZone(), Regex: s.stmtRegex}
}
