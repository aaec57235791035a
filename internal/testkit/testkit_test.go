package testkit

import (
	"net/http"
	"net/http/httptest"
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

func TestBearer(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header.Get("Authorization") }))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	resp, err := (&http.Client{Transport: Bearer{Token: "ctx_x"}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got != "Bearer ctx_x" || req.Header.Get("Authorization") != "" {
		t.Errorf("server saw %q; the caller's request got %q", got, req.Header.Get("Authorization"))
	}
}
