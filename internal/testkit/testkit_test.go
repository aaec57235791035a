package testkit

import (
	"context"
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

func TestBufferWaitFor(t *testing.T) {
	var b Buffer
	done := make(chan bool)
	go func() { done <- b.WaitFor(context.Background(), "line", 2) }()
	b.Write([]byte("line 1\n"))
	b.Write([]byte("other\n"))
	b.Write([]byte("line 2\n"))
	if !<-done {
		t.Fatal("WaitFor did not see two lines")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if b.WaitFor(ctx, "line", 3) {
		t.Fatal("WaitFor saw a third line that was never written")
	}
}
