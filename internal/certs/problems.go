package certs

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
)

// maxACMEBody caps how much of an ACME response is read to find problems.
const maxACMEBody = 1 << 20

// problemRecorder is the ACME client's transport. It passes every exchange
// through unchanged and remembers the CA's explanation of failed challenges
// (for example "Failed to connect to 203.0.113.7:443"), which autocert
// otherwise drops, so the log can say why a certificate was refused.
type problemRecorder struct {
	next http.RoundTripper

	mu       sync.Mutex
	problems []string
}

// acmeAuthz is the part of an ACME authorization (RFC 8555 §7.1.4) read here.
type acmeAuthz struct {
	Status     string `json:"status"`
	Challenges []struct {
		Type  string `json:"type"`
		Error *struct {
			Type   string `json:"type"`
			Detail string `json:"detail"`
		} `json:"error"`
	} `json:"challenges"`
}

func (p *problemRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := p.next.RoundTrip(r)
	if err != nil || !strings.Contains(resp.Header.Get("Content-Type"), "json") {
		return resp, err
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxACMEBody))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return resp, nil // autocert sees the truncated body and reports it
	}
	p.record(body)
	return resp, nil
}

func (p *problemRecorder) record(body []byte) {
	var z acmeAuthz
	if json.Unmarshal(body, &z) != nil || z.Status != "invalid" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range z.Challenges {
		if c.Error == nil {
			continue
		}
		msg := c.Type + ": " + c.Error.Detail
		if len(msg) > 300 {
			msg = msg[:300]
		}
		if !containsString(p.problems, msg) && len(p.problems) < 8 {
			p.problems = append(p.problems, msg)
		}
	}
}

// take returns and forgets the problems seen since the last call.
func (p *problemRecorder) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.problems
	p.problems = nil
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
