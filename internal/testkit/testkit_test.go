package testkit

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
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

func TestVisitorKeepsCookiesAndCSRF(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /form", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "s", Value: "1"})
		w.Write([]byte(`<form><input type="hidden" name="csrf" value="tok-1"><input name="request" value="r-9"></form>`))
	})
	mux.HandleFunc("POST /form", func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Cookie("s")
		if c == nil || r.PostFormValue("csrf") != "tok-1" || r.RemoteAddr != "192.0.2.1:5" || r.Header.Get("Sec-Fetch-Site") != "same-origin" {
			http.Error(w, "refused", http.StatusForbidden)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "s", MaxAge: -1})
		w.Write([]byte(`<p data-csrf="tok-2">done</p>`))
	})
	v := NewVisitor(mux, "192.0.2.1:5")
	var seen []string
	v.Seen = func(b []byte) { seen = append(seen, string(b)) }
	if resp := v.Get("/form"); resp.StatusCode != http.StatusOK || v.CSRF != "tok-1" || v.Cookies["s"] != "1" {
		t.Fatalf("after GET: %d csrf %q cookies %v", resp.StatusCode, v.CSRF, v.Cookies)
	}
	resp := v.PostForm("/form", url.Values{})
	if resp.StatusCode != http.StatusOK || Body(resp) != `<p data-csrf="tok-2">done</p>` || Body(resp) == "" {
		t.Fatalf("POST: %d %q", resp.StatusCode, Body(resp))
	}
	if _, ok := v.Cookies["s"]; ok || v.CSRF != "tok-2" {
		t.Errorf("after POST: cookies %v csrf %q", v.Cookies, v.CSRF)
	}
	if len(seen) != 2 || !strings.Contains(seen[0], "r-9") {
		t.Errorf("Seen got %q", seen)
	}
}

func TestTOTP(t *testing.T) {
	// RFC 6238's SHA-1 test secret ("12345678901234567890" in base32) at
	// 59 s gives 94287082, of which an app shows the last six digits.
	if got := TOTP(t, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", time.Unix(59, 0)); got != "287082" {
		t.Errorf("code %q, want 287082", got)
	}
}

func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	WriteFiles(t, dir, map[string]string{"a.md": "A", "deep/er/b.md": "B"})
	for p, want := range map[string]string{"a.md": "A", "deep/er/b.md": "B"} {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p))); err != nil || string(b) != want {
			t.Errorf("%s: %q %v", p, b, err)
		}
	}
}
