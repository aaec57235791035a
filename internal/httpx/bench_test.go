package httpx

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

// BenchmarkBudgetTake is one attempt against the two-level budget from a
// rotating set of sources: what every /authorize, /register and code
// attempt of a stranger costs.
func BenchmarkBudgetTake(b *testing.B) {
	t := time.Now()
	bud := NewBudget(Rate{Burst: 10, PerMinute: 10}, Rate{Burst: 1 << 30, PerMinute: 1 << 30}, 4096, func() time.Time { return t })
	keys := make([]netip.Prefix, 8192) // twice what the budget remembers: evictions included
	for i := range keys {
		keys[i] = AddrKey(netip.AddrFrom4([4]byte{198, 51, byte(i >> 8), byte(i)}))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		bud.Take(keys[i%len(keys)])
	}
}

// BenchmarkRefusal is a refused request through the log line and the
// adapter: what a flood of bad requests costs per request.
func BenchmarkRefusal(b *testing.B) {
	logger := slog.New(slog.DiscardHandler)
	refused := &Error{Status: http.StatusTooManyRequests, Code: "rate_limited", Message: "wait", RetryAfter: time.Second,
		Err: errors.New("budget spent")}
	h := LogRequests(logger, time.Now)(Handle(JSON, func(http.ResponseWriter, *http.Request) error { return refused }))
	r := httptest.NewRequest(http.MethodPost, "/token", nil)
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
}
