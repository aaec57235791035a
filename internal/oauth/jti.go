package oauth

import (
	"sync"
	"time"
)

// jtiCache remembers client assertion ids until their assertion expires,
// so that each is accepted once. It never forgets a live id to make room:
// when full it refuses new assertions instead.
type jtiCache struct {
	mu  sync.Mutex
	max int
	m   map[string]time.Time // client id + jti → expiry
}

func newJTICache(max int) *jtiCache { return &jtiCache{max: max, m: make(map[string]time.Time)} }

// use records key until exp and reports whether it was new and there was room.
func (c *jtiCache) use(key string, exp, now time.Time) (fresh, room bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok && now.Before(e) {
		return false, true
	}
	if len(c.m) >= c.max {
		c.pruneLocked(now)
		if len(c.m) >= c.max {
			return false, false
		}
	}
	c.m[key] = exp
	return true, true
}

func (c *jtiCache) prune(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pruneLocked(now)
}

func (c *jtiCache) pruneLocked(now time.Time) {
	for k, e := range c.m {
		if !now.Before(e) {
			delete(c.m, k)
		}
	}
}
