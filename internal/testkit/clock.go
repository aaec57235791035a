package testkit

import (
	"sync"
	"time"
)

// Clock is a clock the test moves by hand, for the Now options of the
// packages under test. It is safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// Epoch is the instant NewClock starts at when given the zero time: a fixed
// date, so that expiry and rate tests are exact and repeatable.
var Epoch = time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)

// NewClock returns a clock reading start (Epoch when start is zero).
func NewClock(start time.Time) *Clock {
	if start.IsZero() {
		start = Epoch
	}
	return &Clock{t: start}
}

// Now returns the clock's time; pass the method value as a Now option.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}
