package web

import (
	"container/list"
	"net/http"
	"sync"
	"time"

	"github.com/cortex-mcp/cortex/internal/owner"
)

// limiter is a set of token buckets, one per key, each refilling at rate
// tokens per second up to burst. Memory is bounded: past max keys the least
// recently used bucket is forgotten, which only ever makes that key's next
// request free again, never refuses anyone wrongly.
type limiter struct {
	rate  float64 // tokens per second
	burst float64
	max   int

	mu  sync.Mutex
	lru *list.List               // of *bucket, most recently used at the front
	m   map[string]*list.Element // key -> element of lru
}

type bucket struct {
	key    string
	tokens float64
	last   time.Time
}

func newLimiter(perMinute, burst, size int) *limiter {
	return &limiter{
		rate:  float64(perMinute) / 60,
		burst: float64(burst),
		max:   size,
		lru:   list.New(),
		m:     make(map[string]*list.Element),
	}
}

// get returns key's bucket refilled up to now, creating a full one if needed.
// l.mu must be held.
func (l *limiter) get(key string, now time.Time) *bucket {
	if el, ok := l.m[key]; ok {
		l.lru.MoveToFront(el)
		b := el.Value.(*bucket)
		if dt := now.Sub(b.last).Seconds(); dt > 0 {
			b.tokens = min(l.burst, b.tokens+dt*l.rate)
		}
		b.last = now
		return b
	}
	b := &bucket{key: key, tokens: l.burst, last: now}
	l.m[key] = l.lru.PushFront(b)
	for l.lru.Len() > l.max {
		old := l.lru.Back()
		l.lru.Remove(old)
		delete(l.m, old.Value.(*bucket).key)
	}
	return b
}

// wait reports how long until b holds one whole token. l.mu must be held.
func (l *limiter) wait(b *bucket) time.Duration {
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// take spends one token of key's bucket. When none is left it spends
// nothing and returns false with the time until one is.
func (l *limiter) take(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(key, now)
	if b.tokens < 1 {
		return false, l.wait(b)
	}
	b.tokens--
	return true, 0
}

// len reports how many keys are remembered.
func (l *limiter) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lru.Len()
}

// sourceKey names the network source of r for the unauthenticated budget,
// by the same rules as the owner's login budgets: the TCP peer, or the
// right-most untrusted X-Forwarded-For entry when the peer is one of
// Options.TrustedProxies; IPv4 alone, IPv6 per /48.
func (s *Server) sourceKey(r *http.Request) string {
	return owner.SourceKey(owner.ClientAddr(r, s.opts.TrustedProxies)).String()
}
