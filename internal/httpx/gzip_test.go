package httpx

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

func TestCompress(t *testing.T) {
	page := strings.Repeat("<p>a line of the page</p>\n", 200)
	handler := func(ctype, body string, withLength bool) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			if withLength {
				w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			}
			w.WriteHeader(http.StatusTeapot)
			// In pieces, so the decision spans writes.
			for len(body) > 0 {
				n := min(len(body), 100)
				w.Write([]byte(body[:n]))
				body = body[n:]
			}
		})
	}
	browser := map[string]string{"Accept-Encoding": "gzip, deflate, br", "Sec-Fetch-Site": "same-origin"}
	with := func(h map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for a, b := range h {
			if a != k {
				out[a] = b
			}
		}
		return out
	}
	for _, tt := range []struct {
		name       string
		ctype      string
		body       string
		withLength bool
		headers    map[string]string
		gzipped    bool
		vary       bool
	}{
		{"a page", "text/html; charset=utf-8", page, true, browser, true, true},
		{"a page without length", "text/html; charset=utf-8", page, false, browser, true, true},
		{"typed or reloaded", "text/html; charset=utf-8", page, true, with(browser, "Sec-Fetch-Site", "none"), true, true},
		{"a style sheet", "text/css", page, true, browser, true, true},
		{"a small page", "text/html; charset=utf-8", "<p>hi</p>", true, browser, false, true},
		{"a small page without length", "text/html", "<p>hi</p>", false, browser, false, true},
		{"an image", "image/png", page, true, browser, false, true},
		{"JSON of the MCP endpoint", "application/json", page, false, browser, false, true},
		{"a stream", "text/event-stream", page, false, browser, false, true},
		{"not asked", "text/html", page, true, map[string]string{"Sec-Fetch-Site": "same-origin"}, false, false},
		{"refused with q=0", "text/html", page, true, with(browser, "Accept-Encoding", "gzip;q=0"), false, false},
		{"any encoding", "text/html", page, true, with(browser, "Accept-Encoding", "*"), true, true},
		// BREACH: another site's request, or one that does not say, is
		// answered plain.
		{"started by another site", "text/html", page, true, with(browser, "Sec-Fetch-Site", "cross-site"), false, true},
		{"started by a sibling site", "text/html", page, true, with(browser, "Sec-Fetch-Site", "same-site"), false, true},
		{"no fetch metadata", "text/html", page, true, map[string]string{"Accept-Encoding": "gzip"}, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "https://cortex.example/", nil)
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			Compress(handler(tt.ctype, tt.body, tt.withLength)).ServeHTTP(w, r)
			resp := w.Result()
			if resp.StatusCode != http.StatusTeapot {
				t.Errorf("status %d", resp.StatusCode)
			}
			if got := resp.Header.Get("Vary") == "Accept-Encoding"; got != tt.vary {
				t.Errorf("Vary %q", resp.Header.Get("Vary"))
			}
			body := resp.Body
			if gz := resp.Header.Get("Content-Encoding") == "gzip"; gz != tt.gzipped {
				t.Fatalf("Content-Encoding %q, want gzip: %v", resp.Header.Get("Content-Encoding"), tt.gzipped)
			} else if gz {
				if resp.Header.Get("Content-Length") != "" {
					t.Errorf("a compressed answer keeps the plain Content-Length %s", resp.Header.Get("Content-Length"))
				}
				zr, err := gzip.NewReader(resp.Body)
				if err != nil {
					t.Fatal(err)
				}
				body = zr
			}
			got, err := io.ReadAll(body)
			if err != nil || string(got) != tt.body {
				t.Errorf("body %d bytes (%v), want the %d written", len(got), err, len(tt.body))
			}
			if tt.gzipped && w.Body.Len() > len(tt.body)/4 {
				t.Errorf("compressed to %d of %d bytes", w.Body.Len(), len(tt.body))
			}
		})
	}
}

// A handler that flushes (a stream) gets its bytes out at each flush.
func TestCompressFlushes(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "https://cortex.example/", nil)
	r.Header.Set("Accept-Encoding", "gzip")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	w := httptest.NewRecorder()
	Compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: 1\n\n"))
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("flush: %v", err)
		}
		if !w.(interface{ Unwrap() http.ResponseWriter }).Unwrap().(*httptest.ResponseRecorder).Flushed {
			t.Error("not flushed through")
		}
	})).ServeHTTP(w, r)
	if w.Body.String() != "data: 1\n\n" || w.Header().Get("Content-Encoding") != "" {
		t.Errorf("stream %q, encoding %q", w.Body, w.Header().Get("Content-Encoding"))
	}
}

func BenchmarkCompressPage(b *testing.B) {
	page := []byte(strings.Repeat("<div class=\"d0\" role=\"row\"><span class=\"ln\">12</span><span class=\"tx\">a line</span></div>\n", 2000))
	h := Compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	r := httptest.NewRequest(http.MethodGet, "https://cortex.example/", nil)
	r.Header.Set("Accept-Encoding", "gzip")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
}
