package membudget

import (
	"context"
	"fmt"
	"sync/atomic"
)

// Pool is memory shared by concurrent users that each reserve before they
// hold it and release when done: the SQL engine's working memory
// (memory.query) for hash tables, sorts, DISTINCT and groups. A
// reservation past the pool fails with an *ExceededError (SQLSTATE 53200,
// out_of_memory, to the client) instead of growing the process. Safe for
// concurrent use.
type Pool struct {
	key     string // the config key that sizes it, for errors
	limit   int64
	used    atomic.Int64
	peak    atomic.Int64
	refused atomic.Int64
}

// NewPool returns a pool of limit bytes (not positive: unbounded) sized by
// the config key key.
func NewPool(key string, limit int64) *Pool { return &Pool{key: key, limit: limit} }

// Reserve takes n bytes from the pool, or fails leaving it as it was. A
// nil pool accepts everything.
func (p *Pool) Reserve(n int64) error {
	if p == nil || n <= 0 {
		return nil
	}
	used := p.used.Add(n)
	if p.limit > 0 && used > p.limit {
		p.used.Add(-n)
		p.refused.Add(1)
		return &ExceededError{Key: p.key, Limit: p.limit, Used: used - n, Want: n}
	}
	for {
		pk := p.peak.Load()
		if used <= pk || p.peak.CompareAndSwap(pk, used) {
			break
		}
	}
	return nil
}

// Take takes n bytes from the pool even past its limit: the least a user
// needs to make progress at all, which the limit's owner counts as fixed
// overhead beyond it. Release gives it back like a reservation.
func (p *Pool) Take(n int64) {
	if p == nil || n <= 0 {
		return
	}
	used := p.used.Add(n)
	for {
		pk := p.peak.Load()
		if used <= pk || p.peak.CompareAndSwap(pk, used) {
			break
		}
	}
}

// Release gives back n bytes taken by Reserve.
func (p *Pool) Release(n int64) {
	if p != nil && n > 0 {
		p.used.Add(-n)
	}
}

// Limit is the pool's size (0: unbounded).
func (p *Pool) Limit() int64 {
	if p == nil {
		return 0
	}
	return p.limit
}

// Used is the bytes reserved now.
func (p *Pool) Used() int64 {
	if p == nil {
		return 0
	}
	return p.used.Load()
}

// Peak is the most reserved at once since the pool was made.
func (p *Pool) Peak() int64 {
	if p == nil {
		return 0
	}
	return p.peak.Load()
}

// Refused counts the reservations that failed.
func (p *Pool) Refused() int64 {
	if p == nil {
		return 0
	}
	return p.refused.Load()
}

// Account is one user's running reservation from a Pool (one statement):
// Grow reserves more as the user's memory grows (from any goroutine of
// it), Close gives all of it back. A nil Account, or one without a pool,
// accepts everything.
type Account struct {
	pool *Pool
	held atomic.Int64
}

// NewAccount returns an account drawing on p (nil: unbounded).
func NewAccount(p *Pool) *Account { return &Account{pool: p} }

// Grow reserves n more bytes.
func (a *Account) Grow(n int64) error {
	if a == nil || a.pool == nil {
		return nil
	}
	if err := a.pool.Reserve(n); err != nil {
		return err
	}
	a.held.Add(n)
	return nil
}

// Shrink gives back n of the bytes the account holds (at most what it
// holds): memory its user has let go of before it is done.
func (a *Account) Shrink(n int64) {
	if a == nil || a.pool == nil || n <= 0 {
		return
	}
	for {
		h := a.held.Load()
		m := min(n, h)
		if a.held.CompareAndSwap(h, h-m) {
			a.pool.Release(m)
			return
		}
	}
}

// Limit is the size of the account's pool (0: unbounded).
func (a *Account) Limit() int64 {
	if a == nil {
		return 0
	}
	return a.pool.Limit()
}

// Held is the bytes the account holds.
func (a *Account) Held() int64 {
	if a == nil {
		return 0
	}
	return a.held.Load()
}

// Close releases everything the account holds.
func (a *Account) Close() {
	if a != nil && a.pool != nil {
		a.pool.Release(a.held.Swap(0))
	}
}

type accountKey struct{}

// WithAccount returns ctx carrying a: code below an API that takes only a
// context (the query engine under a Source) charges its memory to it.
func WithAccount(ctx context.Context, a *Account) context.Context {
	if a == nil {
		return ctx
	}
	return context.WithValue(ctx, accountKey{}, a)
}

// AccountFrom is the Account ctx carries (nil: none, unbounded).
func AccountFrom(ctx context.Context) *Account {
	a, _ := ctx.Value(accountKey{}).(*Account)
	return a
}

// ExceededError is a reservation the pool could not give.
type ExceededError struct {
	Key               string
	Limit, Used, Want int64
}

func (e *ExceededError) Error() string {
	return fmt.Sprintf("out of memory: this statement needs more working memory than %s leaves (%s of %s in use, %s more asked); raise %s, or narrow the statement",
		e.Key, FormatBytes(e.Used), FormatBytes(e.Limit), FormatBytes(e.Want), e.Key)
}

// FormatBytes prints n as the config writes sizes (KiB, MiB, GiB).
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<30:
		return fmt.Sprintf("%.1fGiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}
