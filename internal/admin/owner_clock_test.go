package admin

import (
	"sync"
	"time"
)

// ownerClock is a clock the owner tests move by hand.
type ownerClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock(t time.Time) *ownerClock { return &ownerClock{t: t} }

func (c *ownerClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *ownerClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
