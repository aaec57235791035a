package web

import (
	"container/list"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
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

// ready reports whether key's bucket holds a token without spending it, and
// if not, how long until it does.
func (l *limiter) ready(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	el, ok := l.m[key]
	if !ok {
		return true, 0
	}
	b := el.Value.(*bucket)
	tokens := b.tokens
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		tokens = min(l.burst, tokens+dt*l.rate)
	}
	if tokens >= 1 {
		return true, 0
	}
	return false, time.Duration((1 - tokens) / l.rate * float64(time.Second))
}

// len reports how many keys are remembered.
func (l *limiter) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lru.Len()
}

// sourceKey names the network source of r for the unauthenticated budget:
// an IPv4 address, or the /64 an IPv6 address belongs to (one host usually
// owns a whole /64). When the peer is a trusted proxy (loopback, or one of
// Options.TrustedProxies), the proxy's last X-Forwarded-For entry (the
// address it saw) is used instead.
func (s *Server) sourceKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return "peer:" + host
	}
	addr = addr.Unmap().WithZone("")
	if s.trustedProxy(addr) {
		if fwd, ok := forwardedFor(r); ok {
			addr = fwd
		}
	}
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return p.String()
	}
	return addr.String()
}

func (s *Server) trustedProxy(addr netip.Addr) bool {
	if addr.IsLoopback() {
		return true
	}
	for _, p := range s.opts.TrustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// forwardedFor returns the last address in the X-Forwarded-For headers: the
// one appended by the nearest proxy, the only one a proxy vouches for.
func forwardedFor(r *http.Request) (netip.Addr, bool) {
	vals := r.Header.Values("X-Forwarded-For")
	if len(vals) == 0 {
		return netip.Addr{}, false
	}
	last := vals[len(vals)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	addr, err := netip.ParseAddr(strings.TrimSpace(last))
	if err != nil {
		return netip.Addr{}, false
	}
	return addr.Unmap().WithZone(""), true
}
