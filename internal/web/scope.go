package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

// checkScope refuses, with 403 insufficient_scope, a tool call that needs
// Options.WriteScope from a credential that lacks it. Only credentials with
// limited scopes pay for looking into the request body.
func (s *Server) checkScope(r *http.Request, id Identity) error {
	if s.opts.WriteScope == "" || s.opts.IsWriteTool == nil || id.hasScope(s.opts.WriteScope) ||
		r.Method != http.MethodPost || r.Body == nil {
		return nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return &httpx.Error{Status: http.StatusRequestEntityTooLarge, Code: CodeBodyTooLarge,
			Message: "the request body is too large or could not be read", Err: err}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	for _, name := range toolCalls(body) {
		if s.opts.IsWriteTool(name) {
			return &httpx.Error{Status: http.StatusForbidden, Code: CodeInsufficientScope,
				Challenge: s.challenge(fmt.Sprintf(`error="insufficient_scope", scope=%q`, s.scopesForWrite())),
				Message:   "this app may only read notes; reconnect it and allow it to write to call " + name}
		}
	}
	return nil
}

// scopesForWrite is every scope a write needs (SEP-2350: all of them in one
// challenge): the scopes announced for /mcp, which a write uses too, and the
// write scope.
func (s *Server) scopesForWrite() string {
	need := strings.Fields(s.opts.ChallengeScope)
	if !slices.Contains(need, s.opts.WriteScope) {
		need = append(need, s.opts.WriteScope)
	}
	return strings.Join(need, " ")
}

// toolCalls lists the tool names called by a JSON-RPC message or batch.
func toolCalls(body []byte) []string {
	type call struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	var msgs []call
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		_ = json.Unmarshal(body, &msgs)
	} else {
		var one call
		if json.Unmarshal(body, &one) == nil {
			msgs = append(msgs, one)
		}
	}
	var names []string
	for _, m := range msgs {
		if m.Method == "tools/call" {
			names = append(names, m.Params.Name)
		}
	}
	return names
}
