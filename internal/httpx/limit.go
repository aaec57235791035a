package httpx

import (
	"net/netip"
	"sync"
	"time"
)

// Rate is a token bucket's shape: Burst at once, refilling PerMinute.
type Rate struct {
	Burst     int
	PerMinute float64
}

// Or returns r, or def when r has no burst or no refill: a limit left blank
// in an options struct takes its default.
func (r Rate) Or(def Rate) Rate {
	if r.Burst <= 0 || r.PerMinute <= 0 {
		return def
	}
	return r
}

// interval is what one token costs in time. A rate that never refills waits
// an hour per token, which is what a caller who set it can live with.
func (r Rate) interval() time.Duration {
	if r.PerMinute <= 0 {
		return time.Hour
	}
	d := float64(time.Minute) / r.PerMinute
	if d >= 1<<62 {
		return 1 << 62
	}
	return max(time.Duration(d), 1)
}

// full is how long an empty bucket takes to fill, saturating rather than
// overflowing for absurd rates.
func (r Rate) full() time.Duration {
	iv := r.interval()
	if r.Burst <= 0 {
		return 0
	}
	if time.Duration(r.Burst) > (1<<62)/iv {
		return 1 << 62
	}
	return time.Duration(r.Burst) * iv
}

// Bucket is one token bucket. It keeps the moment it was last empty rather
// than a count of tokens, so every wait it reports is exact to the
// nanosecond, with no rounding: Retry-After headers and messages round up
// to whole seconds when they are written.
type Bucket struct {
	empty time.Time // the bucket holds (now-empty)/interval tokens, up to Burst
}

// FullBucket returns a bucket holding r.Burst tokens at now.
func FullBucket(r Rate, now time.Time) Bucket {
	return Bucket{empty: now.Add(-r.full())}
}

// Take spends one token at now. When none is left it spends nothing and
// returns false and how long until one is there.
func (b *Bucket) Take(r Rate, now time.Time) (bool, time.Duration) {
	iv := r.interval()
	if full := now.Add(-r.full()); b.empty.Before(full) {
		b.empty = full
	}
	if have := now.Sub(b.empty); have < iv {
		return false, iv - have
	}
	b.empty = b.empty.Add(iv)
	return true, 0
}

// Refund gives back one token; the burst still caps what the bucket holds.
func (b *Bucket) Refund(r Rate) { b.empty = b.empty.Add(-r.interval()) }

// Limiter is a token bucket per key. It remembers at most a bounded number
// of keys: past that the least recently used is forgotten, which can only
// ever give that key a fresh bucket, so a shared global budget must sit
// behind any per-source one that guards a secret (see Budget). Safe for
// concurrent use.
type Limiter[K comparable] struct {
	rate Rate
	now  func() time.Time

	mu      sync.Mutex
	buckets *LRU[K, *Bucket]
}

// NewLimiter returns a limiter of rate per key, remembering at most maxKeys
// keys, reading the time from now (time.Now when nil).
func NewLimiter[K comparable](rate Rate, maxKeys int, now func() time.Time) *Limiter[K] {
	if now == nil {
		now = time.Now
	}
	return &Limiter[K]{rate: rate, now: now, buckets: NewLRU[K, *Bucket](maxKeys)}
}

// Take spends one token of k's bucket. When none is left it spends nothing
// and returns false and how long until one is there.
func (l *Limiter[K]) Take(k K) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.buckets.GetOrPut(k, func() *Bucket { b := FullBucket(l.rate, now); return &b })
	return b.Take(l.rate, now)
}

// Refund gives back one token taken from k, up to the burst: for an attempt
// that a later budget refused, so that k did not pay for it.
func (l *Limiter[K]) Refund(k K) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.buckets.Get(k); ok {
		b.Refund(l.rate)
	}
}

// Len reports how many keys are remembered.
func (l *Limiter[K]) Len() int { return l.buckets.Len() }

// Budget is the two-level budget of the endpoints strangers can reach: each
// source spends its own bucket first, then one global bucket that all
// sources share, so that neither one source nor many can run away with it.
// Safe for concurrent use.
type Budget struct {
	source *Limiter[netip.Prefix]
	global *Limiter[struct{}] // nil: per source only
}

// NewBudget returns a budget of source per source (remembering maxSources)
// in front of global; a global Burst of 0 means per source only.
func NewBudget(source, global Rate, maxSources int, now func() time.Time) *Budget {
	b := &Budget{source: NewLimiter[netip.Prefix](source, maxSources, now)}
	if global.Burst > 0 {
		b.global = NewLimiter[struct{}](global, 1, now)
	}
	return b
}

// Take spends one attempt of src, then one of the global bucket; when the
// global one refuses, src gets its token back.
func (b *Budget) Take(src netip.Prefix) (bool, time.Duration) {
	ok, wait := b.source.Take(src)
	if !ok || b.global == nil {
		return ok, wait
	}
	if ok, wait := b.global.Take(struct{}{}); !ok {
		b.source.Refund(src)
		return false, wait
	}
	return true, 0
}

// Sources reports how many sources the budget remembers.
func (b *Budget) Sources() int { return b.source.Len() }

// Or returns v, or def when v is zero or negative (left unset): the one
// way the HTTP edge's options and limits (web.Options, owner.Budgets,
// oauth.Limits) take their defaults, field by field, as Rate.Or does for a
// rate. Each struct's test checks that its zero value gets every default,
// so that a field added cannot be forgotten.
func Or[T int | int64 | float64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
