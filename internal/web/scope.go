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
	names, ok := toolCalls(body)
	if !ok {
		return &httpx.Error{Status: http.StatusBadRequest, Code: CodeInvalidJSON,
			Message: "the request body is not JSON; send one JSON-RPC message"}
	}
	for _, name := range names {
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

// toolCalls lists every tool name a JSON-RPC message or batch may call.
// The SDK reads the body with a decoder of its own that matches keys in
// their exact case and reads only the first JSON value, where
// encoding/json matches keys in any case and keeps the last of repeated
// ones: a body read differently here ("name" and "Name", text after the
// message) would let a write call pass as another. So every key that any
// of them could take counts: "method", "params" and "name" in any case,
// each copy of a repeated key, in the first value only. ok is false when
// that value is not JSON.
func toolCalls(body []byte) (names []string, ok bool) {
	var first json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&first); err != nil {
		return nil, false
	}
	msgs := []json.RawMessage{first}
	if first[0] == '[' {
		if json.Unmarshal(first, &msgs) != nil {
			return nil, false
		}
	}
	for _, m := range msgs {
		var call bool
		var called []string
		if !eachKey(m, func(key string, v json.RawMessage) {
			switch {
			case strings.EqualFold(key, "method"):
				var method string
				call = call || json.Unmarshal(v, &method) == nil && method == "tools/call"
			case strings.EqualFold(key, "params"):
				eachKey(v, func(key string, v json.RawMessage) {
					var name string
					if strings.EqualFold(key, "name") && json.Unmarshal(v, &name) == nil {
						called = append(called, name)
					}
				})
			}
		}) {
			return nil, false
		}
		if call {
			names = append(names, called...)
		}
	}
	return names, true
}

// eachKey calls f with each key of the JSON object obj and its value, in
// order, repeated keys included. A value that is no object has no keys;
// false means obj is not JSON.
func eachKey(obj json.RawMessage, f func(key string, v json.RawMessage)) bool {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return err == nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return false
		}
		f(key, v)
	}
	return true
}
