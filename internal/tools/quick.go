package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Quick answers the commonest request /mcp gets, a call of a read-only
// tool, without the SDK's machinery around it: the SDK builds a session for
// every request (a stateless server keeps none), hands the call to a
// goroutine of a JSON-RPC connection, and encodes the answer three times
// over (the text block, the result, the response, each a full pass over a
// note that is in the answer twice). On the 10k-note vault that was more
// than half of a fetch's CPU.
//
// It answers only requests whose meaning it can tell for certain, and
// answers them byte for byte as the SDK would (TestQuickMatchesSDK and
// FuzzQuickMatchesSDK compare the two on every tool and on mangled
// requests); for anything else (another method, a write, a _meta beyond
// the three keys every 2026-07-28 call carries, an id or a key it does not
// read the same way as the SDK) ok is false and the request goes to the
// SDK unchanged. header is the request's; body its whole body; ti the
// verified token.
//
// The answer is appended to answer, which the caller may reuse once it
// has written the bytes out: an answer is a note or a page of results,
// often twice over, and building it anew for every call is garbage that
// brings the next collection closer. Nothing is written when ok is false.
func (s *Servers) Quick(ctx context.Context, ti *auth.TokenInfo, header http.Header, body []byte, answer *bytes.Buffer) (ok bool) {
	s.mu.Lock()
	t := s.tools
	s.mu.Unlock()
	version, ok := quickHeaders(header)
	if t == nil || !ok {
		return false
	}
	q, ok := quickRequest(body, version)
	if !ok || version >= firstStatelessVersion && header.Get("Mcp-Name") != q.name {
		return false
	}
	h := t.quick[q.name]
	if h == nil {
		return false
	}
	req := &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Meta: q.meta, Name: q.name, Arguments: q.args},
		Extra:  &mcp.RequestExtra{TokenInfo: ti, Header: header},
	}
	// The receiving middleware of newServer that acts on a read-only
	// tool's call (apps passes it through), around the handler as the
	// SDK's callTool runs it.
	res, err := t.schemaErrors(t.serverInfo(func(ctx context.Context, _ string, r mcp.Request) (mcp.Result, error) {
		return h(ctx, r.(*mcp.CallToolRequest))
	}))(ctx, "tools/call", req)
	answer.WriteString(`{"jsonrpc":"2.0","id":`)
	answer.Write(q.id)
	mark := answer.Len()
	if err == nil {
		r := res.(*mcp.CallToolResult)
		if r.Content == nil {
			r.Content = []mcp.Content{} // as callTool does: never "null"
		}
		answer.WriteString(`,"result":`)
		err = encodeResult(answer, r, version >= firstStatelessVersion)
	}
	if err != nil {
		// Not reached by cortex's tools, whose outputs always encode;
		// answered as JSON-RPC's internal error rather than not at all.
		answer.Truncate(mark)
		answer.WriteString(`,"error":{"code":-32603,"message":"the answer could not be encoded; try again or tell the owner"}`)
	}
	answer.WriteByte('}')
	return true
}

// quickHeaders reports whether the headers are those of a plain POST of
// a call, and its version ("" for none). The edge has checked the version
// is one served and, from 2026-07-28 on, made Mcp-Name plain.
func quickHeaders(h http.Header) (version string, ok bool) {
	for _, k := range []string{"Mcp-Session-Id", "Last-Event-Id"} {
		if len(h.Values(k)) > 0 {
			return "", false
		}
	}
	v := h.Values("Mcp-Protocol-Version")
	if len(v) > 1 || len(v) == 1 && v[0] < "2025-03-26" {
		return "", false
	}
	if len(v) == 1 {
		version = v[0]
	}
	method, name := h.Values("Mcp-Method"), h.Values("Mcp-Name")
	if version >= firstStatelessVersion {
		if len(method) != 1 || method[0] != "tools/call" || len(name) != 1 {
			return "", false
		}
	} else if len(method) > 0 || len(name) > 0 {
		return "", false
	}
	if ct := h.Values("Content-Type"); len(ct) != 1 || ct[0] != "application/json" {
		return "", false
	}
	plain, stream := false, false
	for _, v := range h.Values("Accept") {
		for t := range strings.SplitSeq(v, ",") {
			switch strings.TrimSpace(t) {
			case "application/json":
				plain = true
			case "text/event-stream":
				stream = true
			}
		}
	}
	return version, plain && stream
}

// quickCall is a call as Quick reads it.
type quickCall struct {
	id   []byte // as the SDK writes it back
	name string
	args json.RawMessage
	meta mcp.Meta // from 2026-07-28 on
}

// quickRequest reads a tools/call request: exactly the keys jsonrpc, id,
// method and params, each once; params with name, optionally arguments (an
// object) and, from 2026-07-28 on, the _meta every request then carries.
func quickRequest(body []byte, version string) (q quickCall, ok bool) {
	top, ok := objectFields(body)
	if !ok || top.n != 4 || string(top.get("jsonrpc")) != `"2.0"` || string(top.get("method")) != `"tools/call"` {
		return q, false
	}
	if q.id, ok = plainID(top.get("id")); !ok {
		return q, false
	}
	params, ok := objectFields(top.get("params"))
	if !ok {
		return q, false
	}
	raw := params.get("name")
	if !plainString(raw) {
		return q, false
	}
	q.name = string(raw[1 : len(raw)-1])
	for i := range params.n {
		v := params.vals[i]
		switch string(params.keys[i]) {
		case "name":
		case "arguments":
			if v[0] != '{' {
				return q, false
			}
			q.args = v
		case "_meta":
			if version < firstStatelessVersion {
				return q, false
			}
			if q.meta, ok = quickMeta(v, version); !ok {
				return q, false
			}
		default:
			return q, false
		}
	}
	return q, version < firstStatelessVersion || q.meta != nil
}

// quickMeta reads the _meta of a 2026-07-28 call: its version (the
// header's), the client's capabilities and optionally its name, each as
// the SDK takes them, and nothing else (a progress token or a log level
// asks for what Quick does not do).
func quickMeta(raw json.RawMessage, version string) (mcp.Meta, bool) {
	f, ok := objectFields(raw)
	if v := f.get(mcp.MetaKeyProtocolVersion); !ok || !plainString(v) || string(v[1:len(v)-1]) != version {
		return nil, false
	}
	// As the SDK reads them: its ClientCapabilities, with roots in the
	// shape of 2026-07-28 (mcp.RootCapabilities, spelt out).
	var caps struct {
		mcp.ClientCapabilities
		Roots *struct {
			ListChanged bool `json:"listChanged,omitempty"`
		} `json:"roots,omitempty"`
	}
	if c := f.get(mcp.MetaKeyClientCapabilities); len(c) == 0 || c[0] != '{' || json.Unmarshal(c, &caps) != nil {
		return nil, false
	}
	for i := range f.n {
		v := f.vals[i]
		switch string(f.keys[i]) {
		case mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientCapabilities:
		case mcp.MetaKeyClientInfo:
			var info mcp.Implementation
			if len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &info) != nil {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	var m mcp.Meta
	if json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	return m, true
}

// encodeResult appends a tool's result to b as the SDK's response
// encodes it: in one pass for the usual shape (text blocks and
// structuredContent already encoded), each piece written straight into b,
// else with the SDK's own encoder. complete adds what the SDK adds to
// every result from 2026-07-28 on. On an error, b holds part of a result.
func encodeResult(b *bytes.Buffer, r *mcp.CallToolResult, complete bool) error {
	var rawLen int
	switch sc := r.StructuredContent.(type) {
	case encoded:
		rawLen = len(sc)
	case json.RawMessage:
		rawLen = len(sc)
	}
	plain := rawLen > 0 && r.InputRequests == nil && r.RequestState == ""
	for _, c := range r.Content {
		tc, ok := c.(*mcp.TextContent)
		plain = plain && ok && tc.Meta == nil && tc.Annotations == nil
	}
	e := json.NewEncoder(b)
	if !plain {
		e.SetEscapeHTML(false)
		if err := e.Encode(r); err != nil {
			return err
		}
		b.Truncate(b.Len() - len("}\n")) // the closing brace, written below
	} else {
		n := rawLen + 160
		for _, c := range r.Content {
			n += len(c.(*mcp.TextContent).Text)*11/10 + 32
		}
		b.Grow(n)
		b.WriteByte('{')
		if r.Meta != nil {
			b.WriteString(`"_meta":`)
			if err := encodeInto(e, b, r.Meta); err != nil {
				return err
			}
			b.WriteByte(',')
		}
		b.WriteString(`"content":[`)
		for i, c := range r.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"type":"text","text":`)
			text := c.(*mcp.TextContent).Text
			if sc, ok := r.StructuredContent.(encoded); ok && text == string(sc) {
				quoteEncoded(b, sc)
			} else if err := encodeInto(e, b, text); err != nil {
				return err
			}
			b.WriteByte('}')
		}
		b.WriteString(`],"structuredContent":`)
		switch sc := r.StructuredContent.(type) {
		case encoded:
			b.WriteString(string(sc))
		case json.RawMessage:
			b.Write(sc)
		}
		if r.IsError {
			b.WriteString(`,"isError":true`)
		}
	}
	if complete {
		b.WriteString(`,"resultType":"complete"`)
	}
	b.WriteByte('}')
	return nil
}

// encodeInto appends v to b as json.Marshal encodes it, through e, an
// encoder writing to b (Encode writes the same and a newline, dropped).
func encodeInto(e *json.Encoder, b *bytes.Buffer, v any) error {
	if err := e.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1)
	return nil
}

// quoteEncoded appends s, an output as encode encodes it, as a JSON
// string, as encodeInto would: the text block of a result is its output's
// JSON, the note in it once more. encode's output holds no character
// encodeInto would escape but the quote and the backslash: control
// characters, U+2028, U+2029 and <, > and & (HTML escaping is on) are
// written as escapes, invalid UTF-8 as \ufffd. So the second pass only
// looks for those two bytes, eight at a time, rather than decoding every
// rune again.
func quoteEncoded(b *bytes.Buffer, s encoded) {
	b.Grow(len(s) + len(s)/8 + 2)
	out := append(b.AvailableBuffer(), '"')
	for {
		i := 0
		for i+8 <= len(s) && !quoteOrBackslash(uint64(s[i])|uint64(s[i+1])<<8|uint64(s[i+2])<<16|uint64(s[i+3])<<24|
			uint64(s[i+4])<<32|uint64(s[i+5])<<40|uint64(s[i+6])<<48|uint64(s[i+7])<<56) {
			i += 8
		}
		for i < len(s) && s[i] != '"' && s[i] != '\\' {
			i++
		}
		out = append(out, s[:i]...)
		if i == len(s) {
			break
		}
		out = append(out, '\\', s[i])
		s = s[i+1:]
	}
	b.Write(append(out, '"'))
}

// quoteOrBackslash reports whether any of the eight bytes of x is '"' or
// '\\': a byte of x^c is zero where x holds c, and (v-0x01…)&^v&0x80…
// is non-zero exactly when some byte of v is zero.
func quoteOrBackslash(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := x^(ones*'"'), x^(ones*'\\')
	return ((q-ones)&^q|(bs-ones)&^bs)&highs != 0
}
