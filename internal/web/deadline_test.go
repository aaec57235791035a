package web

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"
)

// TestBodyDeadlineStaysWithItsRequest: the body read deadline of a request
// whose handler returned without reading the body (a 404, a refused token)
// does not reach the next request on the same keep-alive connection, which
// comes after that deadline has passed.
func TestBodyDeadlineStaysWithItsRequest(t *testing.T) {
	const timeout = 100 * time.Millisecond
	h := newHarness(t, func(o *Options) { o.BodyReadTimeout = timeout })
	addr := serveUntilEnd(t, h.srv.Handler())

	tr := &http.Transport{MaxConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	base := "http://" + addr
	send := func(method, path, secret, body string) (int, bool) {
		t.Helper()
		reused := false
		trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if secret != "" {
			req.Header.Set("Authorization", "Bearer "+secret)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			t.Fatalf("%s %s: reading the answer: %v", method, path, err)
		}
		return resp.StatusCode, reused
	}
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`
	for _, first := range []struct{ path, secret string }{{"/nowhere", ""}, {"/mcp", "wrong"}} {
		if code, _ := send(http.MethodPost, first.path, first.secret, call); code != http.StatusNotFound && code != http.StatusUnauthorized {
			t.Fatalf("POST %s: %d", first.path, code)
		}
		// The deadline is on the wall clock of a real socket: only time
		// passing can show whether it is still armed.
		time.Sleep(2 * timeout)
		if code, reused := send(http.MethodPost, "/mcp", secretA, call); code != http.StatusOK || !reused {
			t.Errorf("after POST %s: tool call %d on a reused connection %v; want 200 on the same connection", first.path, code, reused)
		}
		time.Sleep(2 * timeout)
		if code, reused := send(http.MethodGet, "/healthz", "", ""); code != http.StatusOK || !reused {
			t.Errorf("after POST %s: healthz %d on a reused connection %v", first.path, code, reused)
		}
	}
}

// TestTricklingBodyIsCutOff: a client that sends headers and one byte of
// the body it announced, then nothing, does not keep its connection,
// whether the handler reads the body (the sign-in form) or answers without
// it (a 404): net/http then reads the rest away before the next request,
// and the body's deadline bounds that too.
func TestTricklingBodyIsCutOff(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.BodyReadTimeout = 200 * time.Millisecond })
	addr := serveUntilEnd(t, h.srv.Handler())
	for _, tc := range []struct {
		name, path, ctype, answer string
	}{
		{"read by the handler", "/login/totp", "application/x-www-form-urlencoded", ""},
		{"left unread", "/nowhere", "application/json", "HTTP/1.1 404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: %s\r\nContent-Length: 1000\r\n\r\nx", tc.path, tc.ctype)
			// The server must give up on the body and close the connection;
			// the read returns when it does (the test's own deadline only
			// guards a hang).
			_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			got, err := io.ReadAll(conn)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("the server kept a trickling connection open")
			}
			if !strings.HasPrefix(string(got), tc.answer) {
				t.Errorf("answer %q, want it to start %q", got, tc.answer)
			}
		})
	}
}
