package builtin

import (
	"context"
	"time"

	"github.com/sidecar-dev/sidecar/types"
)

// Context is what a call may read besides its arguments: the
// statement's clock and source of randomness. The zero Context has no
// clock (now() and friends refuse) and no randomness (random() refuses).
type Context struct {
	// TxnStart is the transaction's start (now(), current_timestamp,
	// transaction_timestamp(): fixed for the transaction).
	TxnStart time.Time
	// StmtStart is the statement's start (statement_timestamp()).
	StmtStart time.Time
	// Clock is clock_timestamp()'s clock; nil: time.Now.
	Clock func() time.Time
	// Random gives random()'s values in [0, 1); nil: random() refuses.
	Random func() float64
	// Zone is the session's TimeZone (nil: UTC): timestamptz's local
	// time in casts, date_trunc, extract, to_char, AT TIME ZONE (tz.go).
	Zone *types.Zone
	// Case is the case mapping of lower, upper, initcap and ILIKE under
	// the statement's collation (casemap.go); nil: not known (non-ASCII
	// text refused).
	Case *CaseMap
	// Ctx is the statement's context: pg_sleep waits on it (a cancel
	// request, statement_timeout). Nil: pg_sleep refuses.
	Ctx context.Context
	// Regex keeps the statement's compiled regular expressions
	// (regexcache.go); nil: each call compiles its pattern.
	Regex *RegexCache
}

// unixEpoch2000 is 2000-01-01 00:00 UTC, PostgreSQL's timestamp epoch, in
// Unix microseconds.
const unixEpoch2000 = 946684800000000

// TimestampOf is t as a timestamp value (microseconds since 2000-01-01
// UTC), truncated to microseconds as PostgreSQL's GetCurrentTimestamp.
func TimestampOf(t time.Time) types.TimestampVal {
	return types.TimestampVal(t.UnixMicro() - unixEpoch2000)
}
