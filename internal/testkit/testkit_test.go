package testkit

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	c := NewClock(time.Time{})
	if !c.Now().Equal(Epoch) {
		t.Fatalf("zero start: %v", c.Now())
	}
	c.Advance(90 * time.Second)
	if got := c.Now().Sub(Epoch); got != 90*time.Second {
		t.Errorf("advanced by %v", got)
	}
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Set(at)
	if !c.Now().Equal(at) {
		t.Errorf("set: %v", c.Now())
	}
}

func TestBufferConcurrentWriters(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("x\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if n := strings.Count(b.String(), "x\n"); n != 800 {
		t.Errorf("%d lines, want 800", n)
	}
}
