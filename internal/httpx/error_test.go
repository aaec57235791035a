package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// serve runs h behind LogRequests and returns the response and the log.
func serve(t *testing.T, h http.Handler, r *http.Request) (*httptest.ResponseRecorder, string) {
	t.Helper()
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	w := httptest.NewRecorder()
	LogRequests(logger, time.Now)(h).ServeHTTP(w, r)
	return w, log.String()
}

func TestRefusalsCarryTheirCodeToTheLogLine(t *testing.T) {
	detail := errors.New("totp step reused")
	h := Handle(JSON, func(w http.ResponseWriter, r *http.Request) error {
		SetApp(r, "claude")
		return &Error{Status: http.StatusUnauthorized, Code: "wrong_code", Message: "That code was not accepted.",
			RetryAfter: 1500 * time.Millisecond, Challenge: "Bearer", Allow: "POST", Err: detail}
	})
	w, log := serve(t, h, httptest.NewRequest(http.MethodPost, "/login/totp?secret=x", nil))
	if w.Code != http.StatusUnauthorized {
		t.Fatalf("status %d", w.Code)
	}
	for k, v := range map[string]string{"Retry-After": "2", "WWW-Authenticate": "Bearer", "Allow": "POST",
		"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Content-Type": "application/json"} {
		if got := w.Header().Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	var body map[string]string
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body["error"] != "wrong_code" || body["message"] != "That code was not accepted." {
		t.Fatalf("body %s (%v)", w.Body, err)
	}
	if strings.Contains(w.Body.String(), "totp step") {
		t.Fatal("the logged detail reached the client")
	}
	for _, want := range []string{"path=/login/totp", "status=401", "code=wrong_code", `error="totp step reused"`, "app=claude"} {
		if !strings.Contains(log, want) {
			t.Errorf("log line lacks %s:\n%s", want, log)
		}
	}
	if strings.Contains(log, "secret") {
		t.Errorf("the query reached the log:\n%s", log)
	}
}

func TestInternalFailuresTellTheClientNothing(t *testing.T) {
	h := Handle(OAuthJSON, func(w http.ResponseWriter, r *http.Request) error {
		return errors.New("disk on fire at /var/lib/cortex")
	})
	w, log := serve(t, h, httptest.NewRequest(http.MethodPost, "/token", nil))
	if w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), "disk") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var body map[string]string
	json.Unmarshal(w.Body.Bytes(), &body)
	if body["error"] != "server_error" || body["error_description"] == "" {
		t.Fatalf("OAuth body %v, want server_error with a description", body)
	}
	if !strings.Contains(log, "level=ERROR") || !strings.Contains(log, "code=internal") || !strings.Contains(log, "disk on fire") {
		t.Fatalf("log:\n%s", log)
	}
}

func TestJSONRPCRefusal(t *testing.T) {
	h := Handle(JSONRPC, func(w http.ResponseWriter, r *http.Request) error {
		return &Error{Status: http.StatusTooManyRequests, Code: "rate_limited", Message: "wait"}
	})
	w, _ := serve(t, h, httptest.NewRequest(http.MethodPost, "/mcp", nil))
	// No id: the request's is unknown, and MCP (2025-11-25 on) leaves it
	// out then rather than sending null, which is no request id.
	want := `{"jsonrpc":"2.0","error":{"code":-31000,"message":"wait","data":{"code":"rate_limited"}}}` + "\n"
	if w.Body.String() != want {
		t.Fatalf("body %s, want %s", w.Body, want)
	}
}

func TestRecoverAnswers500AndLogsThePanic(t *testing.T) {
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	h := LogRequests(logger, time.Now)(Recover(logger, JSON)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("boom")
	})))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/x", nil))
	if w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), "boom") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if !strings.Contains(log.String(), "panic serving request") || !strings.Contains(log.String(), "code=internal") {
		t.Fatalf("log:\n%s", log.String())
	}
}

// TestRecoverAbortsAStartedAnswer: a panic after the response has started
// breaks the connection, so that a client cannot take the cut answer for a
// whole one, and the request still has its log line.
func TestRecoverAbortsAStartedAnswer(t *testing.T) {
	var log bytes.Buffer // read once the server has closed
	logger := slog.New(slog.NewTextHandler(&log, nil))
	srv := httptest.NewServer(LogRequests(logger, time.Now)(Recover(logger, JSON)(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "the first half")
		http.NewResponseController(w).Flush()
		panic("boom")
	}))))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil {
		t.Errorf("the client read %q to a clean end; want the cut answer to fail", body)
	}
	srv.Close() // the handler has returned: its log lines are written
	if l := log.String(); !strings.Contains(l, "panic serving request") || !strings.Contains(l, "msg=request") || !strings.Contains(l, "aborted=true") {
		t.Errorf("log:\n%s", l)
	}
}

func TestRetrySeconds(t *testing.T) {
	for d, want := range map[time.Duration]int{0: 1, time.Millisecond: 1, time.Second: 1, 1001 * time.Millisecond: 2, 30 * time.Second: 30} {
		if got := RetrySeconds(d); got != want {
			t.Errorf("RetrySeconds(%v) = %d, want %d", d, got, want)
		}
	}
}

func TestProblemPage(t *testing.T) {
	p, err := NewPages(nil)
	if err != nil {
		t.Fatal(err)
	}
	render := p.ProblemPage(func(r *http.Request, e *Error) Problem {
		return Problem{Title: "Slow down", Link: "/login?return=" + "%2Fa%3Fb%3D%3Cc%3E", LinkText: "Sign in"}
	})
	h := Handle(render, func(w http.ResponseWriter, r *http.Request) error {
		return &Error{Status: http.StatusTooManyRequests, Code: "rate_limited", Message: "Wait <a minute>.", RetryAfter: time.Minute}
	})
	for range 2 { // the second answer comes from the cache
		w, _ := serve(t, h, httptest.NewRequest(http.MethodGet, "/authorize", nil))
		body := w.Body.String()
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "60" ||
			!strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") ||
			!strings.Contains(w.Header().Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Fatalf("%d %v", w.Code, w.Header())
		}
		for _, want := range []string{"<title>Slow down · cortex</title>", `data-code="rate_limited"`, "Wait &lt;a minute&gt;.",
			`<a href="/login?return=%2Fa%3Fb%3D%3Cc%3E" id="problem-link">Sign in</a>`} {
			if !strings.Contains(body, want) {
				t.Fatalf("page lacks %s:\n%s", want, body)
			}
		}
	}
}

func TestPageHeaders(t *testing.T) {
	w := httptest.NewRecorder()
	PageHeaders(w, PagePolicy{})
	if csp := w.Header().Get("Content-Security-Policy"); strings.Contains(csp, "script-src") || !strings.Contains(csp, "form-action 'self';") {
		t.Errorf("no-script CSP %q", csp)
	}
	w = httptest.NewRecorder()
	PageHeaders(w, PagePolicy{Scripts: true, FormAction: "http://127.0.0.1:33418"})
	csp := w.Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "connect-src 'self'") ||
		!strings.Contains(csp, "form-action 'self' http://127.0.0.1:33418;") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q", csp)
	}
	if w.Header().Get("X-Frame-Options") != "DENY" || w.Header().Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("headers %v", w.Header())
	}
}
