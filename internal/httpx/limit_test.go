package httpx

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

func key(s string) netip.Prefix { return AddrKey(netip.MustParseAddr(s)) }

// Waits are exact: a client told to wait 750ms may come back then.
func TestLimiterWaitsAreExact(t *testing.T) {
	clk := testkit.NewClock(time.Time{})
	l := NewLimiter[string](Rate{Burst: 2, PerMinute: 60}, 3, clk.Now)
	steps := []struct {
		at    time.Duration
		key   string
		ok    bool
		retry time.Duration
	}{
		{0, "a", true, 0},
		{0, "a", true, 0},
		{0, "a", false, time.Second},
		{250 * time.Millisecond, "a", false, 750 * time.Millisecond},
		{time.Second, "a", true, 0},
		{time.Second, "a", false, time.Second},
		{time.Second, "b", true, 0},
	}
	start := clk.Now()
	for i, s := range steps {
		clk.Set(start.Add(s.at))
		ok, retry := l.Take(s.key)
		if ok != s.ok || retry != s.retry {
			t.Errorf("step %d (take %s at %v): got %v %v, want %v %v", i, s.key, s.at, ok, retry, s.ok, s.retry)
		}
	}
}

func TestLimiterNumbers(t *testing.T) {
	clk := testkit.NewClock(time.Time{})
	l := NewLimiter[netip.Prefix](Rate{Burst: 5, PerMinute: 2}, 100, clk.Now)
	k := key("198.51.100.1")
	for i := range 5 {
		if ok, _ := l.Take(k); !ok {
			t.Fatalf("attempt %d of the burst refused", i+1)
		}
	}
	ok, wait := l.Take(k)
	if ok || wait != 30*time.Second {
		t.Fatalf("6th attempt: ok=%v wait=%v, want refused for 30s (2 a minute)", ok, wait)
	}
	clk.Advance(29 * time.Second)
	if ok, wait := l.Take(k); ok || wait != time.Second {
		t.Fatalf("after 29s: ok=%v wait=%v", ok, wait)
	}
	clk.Advance(time.Second)
	if ok, _ := l.Take(k); !ok {
		t.Fatal("after 30s: refused")
	}
	// Another source has its own bucket.
	if ok, _ := l.Take(key("198.51.100.2")); !ok {
		t.Fatal("other source refused")
	}
	// A refund gives a token back, never beyond the burst.
	l.Refund(k)
	if ok, _ := l.Take(k); !ok {
		t.Fatal("refunded token missing")
	}
	clk.Advance(time.Hour)
	for range 10 {
		l.Refund(k)
	}
	n := 0
	for {
		if ok, _ := l.Take(k); !ok {
			break
		}
		n++
	}
	if n != 5 {
		t.Fatalf("bucket held %d after refunds, want the burst 5", n)
	}
}

// A long pause refills up to the burst, no more.
func TestLimiterRefillsToBurst(t *testing.T) {
	clk := testkit.NewClock(time.Time{})
	l := NewLimiter[string](Rate{Burst: 3, PerMinute: 30}, 10, clk.Now)
	for range 3 {
		l.Take("a")
	}
	clk.Advance(time.Hour)
	for i := range 3 {
		if ok, _ := l.Take("a"); !ok {
			t.Fatalf("after an hour, take %d refused", i)
		}
	}
	if ok, wait := l.Take("a"); ok || wait != 2*time.Second {
		t.Fatalf("beyond the burst: ok=%v wait=%v, want refused for 2s", ok, wait)
	}
}

func TestLimiterIsBounded(t *testing.T) {
	clk := testkit.NewClock(time.Time{})
	l := NewLimiter[string](Rate{Burst: 1, PerMinute: 60}, 100, clk.Now)
	for i := range 1000 {
		l.Take(fmt.Sprint("k", i))
	}
	if n := l.Len(); n != 100 {
		t.Fatalf("limiter remembers %d keys, want 100", n)
	}
	// The most recent keys are the ones kept.
	if ok, _ := l.Take("k999"); ok {
		t.Error("k999 was forgotten")
	}
	if ok, _ := l.Take("k0"); !ok {
		t.Error("k0 is still remembered")
	}
}

func TestBudgetPerSourceThenGlobal(t *testing.T) {
	clk := testkit.NewClock(time.Time{})
	b := NewBudget(Rate{Burst: 2, PerMinute: 2}, Rate{Burst: 3, PerMinute: 10}, 100, clk.Now)
	a, c := key("198.51.100.1"), key("198.51.100.2")
	for i := range 2 {
		if ok, _ := b.Take(a); !ok {
			t.Fatalf("a's attempt %d refused", i)
		}
	}
	if ok, wait := b.Take(a); ok || wait != 30*time.Second {
		t.Fatalf("a beyond its burst: ok=%v wait=%v, want its own 30s", ok, wait)
	}
	if ok, _ := b.Take(c); !ok {
		t.Fatal("c's first attempt refused")
	}
	// The global bucket is empty now: c is refused with the global wait and
	// keeps its own token.
	if ok, wait := b.Take(c); ok || wait != 6*time.Second {
		t.Fatalf("global empty: ok=%v wait=%v, want refused for 6s", ok, wait)
	}
	clk.Advance(6 * time.Second)
	if ok, _ := b.Take(c); !ok {
		t.Fatal("c's refunded token was not there after the global refill")
	}
	if b.Sources() != 2 {
		t.Fatalf("remembers %d sources, want 2", b.Sources())
	}
	perSource := NewBudget(Rate{Burst: 1, PerMinute: 1}, Rate{}, 10, clk.Now)
	for _, k := range []netip.Prefix{a, c, key("198.51.100.3")} {
		if ok, _ := perSource.Take(k); !ok {
			t.Fatalf("per-source budget without a global one refused %s", k)
		}
	}
}

func TestLRU(t *testing.T) {
	c := NewLRU[string, int](2)
	c.Put("a", 1)
	c.Put("b", 2)
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatalf("a = %v %v", v, ok)
	}
	c.Put("c", 3) // b is the least recently used
	if _, ok := c.Get("b"); ok {
		t.Fatal("b was kept past the bound")
	}
	c.Put("a", 10)
	if v, _ := c.Get("a"); v != 10 {
		t.Fatalf("a = %d after replacing it", v)
	}
	if v := c.GetOrPut("d", func() int { return 4 }); v != 4 || c.Len() != 2 {
		t.Fatalf("GetOrPut d = %d, len %d", v, c.Len())
	}
	if v := c.GetOrPut("d", func() int { return 5 }); v != 4 {
		t.Fatalf("GetOrPut of a present key made a new value %d", v)
	}
	c.Remove("d")
	if _, ok := c.Get("d"); ok || c.Len() != 1 {
		t.Fatalf("d still there after Remove (len %d)", c.Len())
	}
}

// Absurd rates neither overflow nor refuse a full bucket.
func TestLimiterAbsurdRates(t *testing.T) {
	clk := testkit.NewClock(time.Time{})
	for _, r := range []Rate{{Burst: 1 << 40, PerMinute: 0}, {Burst: 1 << 30, PerMinute: 1 << 30}, {Burst: 1, PerMinute: 1e-9}} {
		l := NewLimiter[string](r, 1, clk.Now)
		if ok, _ := l.Take("a"); !ok {
			t.Errorf("%+v: the first take was refused", r)
		}
	}
}

func TestRateOr(t *testing.T) {
	def := Rate{Burst: 5, PerMinute: 10}
	for _, r := range []Rate{{}, {Burst: 3}, {PerMinute: 3}, {Burst: -1, PerMinute: 3}} {
		if got := r.Or(def); got != def {
			t.Errorf("%+v.Or(def) = %+v, want the default", r, got)
		}
	}
	if r := (Rate{Burst: 1, PerMinute: 0.5}); r.Or(def) != r {
		t.Errorf("a set rate was replaced")
	}
}

// Or gives a field left zero or negative its default, and keeps what was
// set.
func TestOr(t *testing.T) {
	if Or(0, 7) != 7 || Or(-1, 7) != 7 || Or(3, 7) != 3 {
		t.Error("Or of ints")
	}
	if Or(-time.Second, time.Minute) != time.Minute || Or(time.Second, time.Minute) != time.Second {
		t.Error("Or of durations")
	}
	if Or(int64(0), 64) != 64 || Or(2.5, 9) != 2.5 || Or(0.0, 9) != 9 {
		t.Error("Or of int64 and float64")
	}
}
