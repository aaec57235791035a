package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestTokenRateLimit(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.RatePerMinute = 30; o.RateBurst = 3 })
	// GET passes auth and the rate limit, then is answered 405: cheap
	// requests that count.
	req := func(secret string) *httptest.ResponseRecorder {
		return h.do(mcpRequest(http.MethodGet, secret, "", ""))
	}
	for i := range 3 {
		if w := req(secretA); w.Code != http.StatusMethodNotAllowed {
			t.Fatalf("request %d: status %d, want 405", i, w.Code)
		}
	}
	w := req(secretA)
	if w.Code != http.StatusTooManyRequests {
		t.Fatalf("4th request: status %d, want 429", w.Code)
	}
	if got := w.Header().Get("Retry-After"); got != "2" { // 30/min: one every 2 s
		t.Errorf("Retry-After %q, want 2", got)
	}
	code, msg := rpcError(t, w.Body.Bytes())
	if code != CodeRateLimited || msg != "too many requests for this token; wait 2 seconds and try again" {
		t.Errorf("code %q message %q", code, msg)
	}
	// Another token is not affected.
	if w := req(secretB); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("other token: status %d, want 405", w.Code)
	}
	h.clock.Advance(1500 * time.Millisecond)
	if w := req(secretA); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
		t.Errorf("after 1.5 s: status %d Retry-After %q, want 429 and 1", w.Code, w.Header().Get("Retry-After"))
	}
	h.clock.Advance(500 * time.Millisecond)
	if w := req(secretA); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("after 2 s: status %d, want 405", w.Code)
	}
	if w := req(secretA); w.Code != http.StatusTooManyRequests {
		t.Errorf("right after: status %d, want 429", w.Code)
	}
	// A long pause refills up to the burst, no more.
	h.clock.Advance(time.Hour)
	for i := range 3 {
		if w := req(secretA); w.Code != http.StatusMethodNotAllowed {
			t.Fatalf("after an hour, request %d: status %d", i, w.Code)
		}
	}
	if w := req(secretA); w.Code != http.StatusTooManyRequests {
		t.Errorf("burst exceeded after an hour: status %d, want 429", w.Code)
	}
}
