package builtin

import (
	"context"
	"math"
	"time"

	"github.com/sidecar-dev/sidecar/types"
)

// oidVoid is the void pseudo-type (outside the catalog: its value is
// its output text, the empty string).
const oidVoid OID = 2278

// pgSleepChunk is how long pg_sleep waits at once, as PostgreSQL's
// loop (600 s), checking the statement between chunks.
const pgSleepChunk = 600 * time.Second

// addSleep registers pg_sleep(float8), pg_sleep_for(interval) and
// pg_sleep_until(timestamptz): volatile, void. They wait on the
// statement's context (Context.Ctx), so a cancel request or
// statement_timeout ends them with 57014 as PostgreSQL's
// CHECK_FOR_INTERRUPTS does; a sleeping session holds a timer, no
// memory. Without a statement context (folding at plan time, a caller
// that gives none) they refuse.
func (r *Registry) addSleep() {
	r.def("pg_sleep", oidVoid, func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
		return sleepFor(c, f8Of(a[0]))
	}, f8).volatile()
	// pg_sleep_for(interval): extract(epoch from clock_timestamp() + $1)
	// - extract(epoch from clock_timestamp()) seconds.
	r.def("pg_sleep_for", oidVoid, func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
		if c == nil || c.Ctx == nil || c.Clock == nil {
			return nil, unsupported("pg_sleep_for here")
		}
		now := TimestampOf(c.Clock())
		end, err := tsPlusInterval(now, a[0].(types.IntervalVal), true, c.Zone)
		if err != nil {
			return nil, err
		}
		return sleepFor(c, epochSeconds(end)-epochSeconds(TimestampOf(c.Clock())))
	}, iv).volatile()
	// pg_sleep_until(timestamptz): extract(epoch from $1) -
	// extract(epoch from clock_timestamp()) seconds.
	r.def("pg_sleep_until", oidVoid, func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
		if c == nil || c.Ctx == nil || c.Clock == nil {
			return nil, unsupported("pg_sleep_until here")
		}
		return sleepFor(c, epochSeconds(a[0].(types.TimestampVal))-epochSeconds(TimestampOf(c.Clock())))
	}, tsz).volatile()
}

// epochSeconds is extract(epoch from t): ±Inf for the infinities.
func epochSeconds(t types.TimestampVal) float64 {
	switch t {
	case types.TimestampPosInf:
		return math.Inf(1)
	case types.TimestampNegInf:
		return math.Inf(-1)
	}
	return float64(int64(t)+unixEpoch2000) / 1e6
}

// sleepFor is pg_sleep: secs from now, in chunks of at most
// pgSleepChunk; NaN, zero and negative return at once (PostgreSQL's
// loop compares the remaining delay with > 0).
func sleepFor(c *Context, secs float64) (types.Value, error) {
	if c == nil || c.Ctx == nil {
		return nil, unsupported("pg_sleep here")
	}
	ctx := c.Ctx
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !(secs > 0) {
		return "", nil
	}
	var end time.Time
	if secs < 1e9 { // ~31 years; past that (and +Inf) until interrupted
		end = time.Now().Add(time.Duration(secs * float64(time.Second)))
	}
	for {
		d := pgSleepChunk
		if !end.IsZero() {
			if d = time.Until(end); d <= 0 {
				return "", nil
			}
			d = min(d, pgSleepChunk)
		}
		timer := time.NewTimer(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, context.Cause(ctx)
		case <-timer.C:
		}
	}
}
