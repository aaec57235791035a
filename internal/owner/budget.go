package owner

import (
	"container/list"
	"math"
	"net/netip"
	"sync"
	"time"
)

// Budgets sets how many attempts the login routes accept. Zero fields take
// the defaults of DefaultBudgets.
type Budgets struct {
	// Code attempts (TOTP and recovery codes, on login and enrolment) spend
	// from the source's bucket first, then from the shared global one; a
	// browser with a device cookie spends its own bucket instead (below).
	CodeSourceBurst     int
	CodeSourcePerMinute float64
	CodeGlobalBurst     int
	CodeGlobalPerMinute float64

	// Passkey ceremonies (login and enrolment begin) spend only from the
	// source's bucket: a passkey cannot be guessed, so the shared code
	// budget must never stand in the owner's way.
	PasskeySourceBurst     int
	PasskeySourcePerMinute float64

	// MaxSources bounds how many sources each budget remembers (LRU).
	MaxSources int

	// A browser the owner has signed in from carries a device cookie. Its
	// code attempts spend only its own budget, instead of the source's and
	// the global one that strangers can empty; and while TOTP is locked it
	// may still sign in with TOTP, until DeviceLockAfter consecutive wrong
	// codes close its lane (until it signs in some other way, or cortex
	// restarts). MaxDevices bounds how many devices are remembered (LRU;
	// only valid cookies, which only sign-ins mint, get an entry).
	DeviceBurst     int
	DevicePerMinute float64
	DeviceLockAfter int
	MaxDevices      int

	// TOTPLockAfter consecutive wrong TOTP codes lock TOTP until a passkey
	// or recovery-code login, or `cortex admin unlock-totp`.
	TOTPLockAfter int
}

// DefaultBudgets are the numbers cortex runs with.
var DefaultBudgets = Budgets{
	CodeSourceBurst:        5,
	CodeSourcePerMinute:    2,
	CodeGlobalBurst:        10,
	CodeGlobalPerMinute:    10,
	PasskeySourceBurst:     10,
	PasskeySourcePerMinute: 10,
	MaxSources:             4096,
	DeviceBurst:            5,
	DevicePerMinute:        2,
	DeviceLockAfter:        10,
	MaxDevices:             64,
	TOTPLockAfter:          50,
}

func (b Budgets) withDefaults() Budgets {
	d := DefaultBudgets
	setInt := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	setF := func(v *float64, def float64) {
		if *v <= 0 {
			*v = def
		}
	}
	setInt(&b.CodeSourceBurst, d.CodeSourceBurst)
	setF(&b.CodeSourcePerMinute, d.CodeSourcePerMinute)
	setInt(&b.CodeGlobalBurst, d.CodeGlobalBurst)
	setF(&b.CodeGlobalPerMinute, d.CodeGlobalPerMinute)
	setInt(&b.PasskeySourceBurst, d.PasskeySourceBurst)
	setF(&b.PasskeySourcePerMinute, d.PasskeySourcePerMinute)
	setInt(&b.MaxSources, d.MaxSources)
	setInt(&b.DeviceBurst, d.DeviceBurst)
	setF(&b.DevicePerMinute, d.DevicePerMinute)
	setInt(&b.DeviceLockAfter, d.DeviceLockAfter)
	setInt(&b.MaxDevices, d.MaxDevices)
	setInt(&b.TOTPLockAfter, d.TOTPLockAfter)
	return b
}

// Limiter is a set of token buckets keyed by source, each holding up to
// burst tokens and refilling at a steady rate. It remembers at most max
// sources: past that the least recently used is forgotten, which can only
// ever give that source a fresh bucket, so a shared global budget must sit
// behind any per-source one that guards a secret. Safe for concurrent use.
type Limiter struct {
	rate  float64 // tokens per second
	burst float64
	max   int
	now   func() time.Time

	mu  sync.Mutex
	lru *list.List // of *bucket, most recent at the front
	m   map[netip.Prefix]*list.Element
}

type bucket struct {
	key    netip.Prefix
	tokens float64
	last   time.Time
}

// NewLimiter returns a limiter of burst tokens refilling perMinute a minute,
// remembering at most maxKeys sources, reading time from now.
func NewLimiter(burst int, perMinute float64, maxKeys int, now func() time.Time) *Limiter {
	return &Limiter{
		rate:  perMinute / 60,
		burst: float64(burst),
		max:   max(maxKeys, 1),
		now:   now,
		lru:   list.New(),
		m:     make(map[netip.Prefix]*list.Element),
	}
}

// get returns key's bucket refilled up to t. l.mu must be held.
func (l *Limiter) get(key netip.Prefix, t time.Time) *bucket {
	if el, ok := l.m[key]; ok {
		l.lru.MoveToFront(el)
		b := el.Value.(*bucket)
		b.refill(t, l.rate, l.burst)
		return b
	}
	b := &bucket{key: key, tokens: l.burst, last: t}
	l.m[key] = l.lru.PushFront(b)
	for l.lru.Len() > l.max {
		old := l.lru.Back()
		l.lru.Remove(old)
		delete(l.m, old.Value.(*bucket).key)
	}
	return b
}

// refill adds what rate (tokens per second) has earned since b.last, up to
// burst.
func (b *bucket) refill(t time.Time, rate, burst float64) {
	if dt := t.Sub(b.last).Seconds(); dt > 0 {
		b.tokens = min(burst, b.tokens+dt*rate)
		b.last = t
	}
}

// Take spends one token of key's bucket. When none is left it spends
// nothing and returns false and how long until one is there.
func (l *Limiter) Take(key netip.Prefix) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(key, l.now())
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, waitFor(b.tokens, l.rate)
}

// Refund gives back one token taken from key, up to the burst. Used when a
// later budget refused the attempt, so that the source did not pay for it.
func (l *Limiter) Refund(key netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if el, ok := l.m[key]; ok {
		b := el.Value.(*bucket)
		b.tokens = min(l.burst, b.tokens+1)
	}
}

// Len reports how many sources the limiter remembers.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lru.Len()
}

// waitFor is how long a bucket holding tokens takes to reach one at rate
// tokens per second.
func waitFor(tokens, rate float64) time.Duration {
	if rate <= 0 {
		return time.Hour
	}
	secs := math.Ceil((1 - tokens) / rate)
	return time.Duration(max(secs, 1)) * time.Second
}

// codeBudget is a per-source limiter in front of a global one.
type codeBudget struct {
	source *Limiter
	global *Limiter
}

// globalKey is the one key of a global limiter.
var globalKey = netip.Prefix{}

// take spends one attempt for src: first from src's own bucket, then from
// the global one; if the global one refuses, src's token is given back.
func (c *codeBudget) take(src netip.Prefix) (bool, time.Duration) {
	ok, wait := c.source.Take(src)
	if !ok {
		return false, wait
	}
	if ok, wait := c.global.Take(globalKey); !ok {
		c.source.Refund(src)
		return false, wait
	}
	return true, 0
}
